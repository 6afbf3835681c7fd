mod parser;
pub mod util;
mod inline {
    pub fn inner() {}
}

use crate::config::{Settings, load};
use super::shared::Helper;
use std::collections::HashMap;

// use crate::ghost;

pub const LIMIT: usize = 16;

pub struct Engine {
    settings: Settings,
}

impl Engine {
    pub fn run(&self) -> usize {
        let s = "use crate::fake;";
        parser::parse(s);
        self.settings.apply();
        LIMIT
    }
}

macro_rules! shout {
    ($e:expr) => { println!("{}", $e) };
}
