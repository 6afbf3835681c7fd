const path = require('path');
const { parse } = require("./parser");
/* require('./commented') */
function run(argv) {
    return parse(argv).map(x => x.trim());
}
module.exports = { run };
