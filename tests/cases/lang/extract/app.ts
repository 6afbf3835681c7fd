import { helper } from './util';
import type { Config } from "@app/config";
export { thing } from '../shared/thing.js';
import fs = require('fs');
const lazy = import('./lazy');
// import { ghost } from './ghost';
const text = "import x from './notreal'";

export interface Options {
    verbose: boolean;
}

export const DEFAULT_PORT = 8080;

export class Server {
    start(opts: Options): void {
        helper(opts);
        this.listen(DEFAULT_PORT);
    }
}

export function makeServer(cfg: Config): Server {
    return new Server();
}

export const handler = (req: Request) => {
    return respond(req);
};

type Id = string;
