// modelserver.mjs - a scripted model server on loopback for the real agent
// clients: it answers each client's model API (the dialect modules beside
// it) with the next step of a per-run script, and records every request.
//
//   node modelserver.mjs --script FILE --log FILE --port-file FILE
//
// The script is JSON: { "steps": [ STEP, ... ] }. Each request that asks
// the model for its next move takes one step; a request the dialect marks
// as a side request (a title, a routing choice, a token count) takes none.
// A STEP is one of
//   { "tool": NAME, "input": {...} }     call one tool
//   { "text": "..." }                      answer in words (ends the turn)
// Past the last step the server answers { "text": "done" }.
//
// The log gets one JSON line per request: { "n", "method", "url",
// "dialect", "side", "step", "body" } — so a test can read what the model
// was told (tool results, additional context) and which tools it was given.
// The server listens on 127.0.0.1 only and writes its port to --port-file
// once listening; it exits on SIGTERM or when its parent goes away.
import { createServer } from 'node:http';
import { appendFileSync, readFileSync, writeFileSync, renameSync } from 'node:fs';

import anthropic from './dialect_anthropic.mjs';
import openai from './dialect_openai.mjs';
import gemini from './dialect_gemini.mjs';

const DIALECTS = [anthropic, openai, gemini];

function arg(name) {
    const i = process.argv.indexOf(name);
    if (i < 0 || i + 1 >= process.argv.length) {
        process.stderr.write(`modelserver: ${name} is required\n`);
        process.exit(2);
    }
    return process.argv[i + 1];
}

const script = JSON.parse(readFileSync(arg('--script'), 'utf8'));
const logFile = arg('--log');
const portFile = arg('--port-file');
const steps = Array.isArray(script.steps) ? script.steps : [];
let next = 0;
let n = 0;

// The context a dialect handles a request with.
function context(dialect, req, body) {
    const rec = { n: n++, method: req.method, url: req.url, dialect: dialect.name, side: false, step: null, body };
    return {
        // the next step of the script (a side request must not call this)
        step() {
            const s = next < steps.length ? steps[next++] : { text: 'done' };
            rec.step = s;
            return s;
        },
        // mark this request as a side request (takes no step)
        side() {
            rec.side = true;
        },
        // an id unique in this run, for tool calls and messages
        id(prefix) {
            return `${prefix}${rec.n}_${Math.random().toString(36).slice(2, 10)}`;
        },
        record() {
            appendFileSync(logFile, JSON.stringify(rec) + '\n');
        },
    };
}

const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body = null;
        try {
            body = text ? JSON.parse(text) : null;
        } catch {
            body = { unparsed: text };
        }
        const url = new URL(req.url, 'http://127.0.0.1');
        const dialect = DIALECTS.find((d) => d.match(req.method, url.pathname));
        if (!dialect) {
            appendFileSync(logFile, JSON.stringify({ n: n++, method: req.method, url: req.url, dialect: null, body }) + '\n');
            res.writeHead(404, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: { message: `no scripted answer for ${req.method} ${url.pathname}` } }));
            return;
        }
        const ctx = context(dialect, req, body);
        try {
            dialect.handle(req, url, body, res, ctx);
        } catch (e) {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: { message: String(e && e.stack) } }));
        }
        ctx.record();
    });
});

server.listen(0, '127.0.0.1', () => {
    const tmp = `${portFile}.tmp`;
    writeFileSync(tmp, `${server.address().port}\n`);
    renameSync(tmp, portFile);
});

process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
// the test that started the server is gone (the server is re-parented,
// to init or a subreaper): so is the server
const parent = process.ppid;
setInterval(() => {
    if (process.ppid !== parent)
        process.exit(0);
}, 1000).unref();
