// mcp_client.mjs - drive `airspace mcp` with the official MCP TypeScript SDK
// client (Client + StdioClientTransport), then with raw lines for the
// protocol edges the SDK never sends. Run from inside a repository whose
// daemon is up, with AIRSPACE_BIN and MCP_NODE_MODULES set; another agent
// "bob" must hold an exclusive lock on src/held.c and a claim on
// src/bclaim.c. Prints "N passed, N failed" last; exits 1 on any failure.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const bin = process.env.AIRSPACE_BIN;
const nm = process.env.MCP_NODE_MODULES;
const sdk = (p) =>
    import(pathToFileURL(`${nm}/@modelcontextprotocol/sdk/dist/esm/${p}`).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

let passed = 0, failed = 0;
function check(name, cond, detail) {
    if (cond) {
        passed++;
    } else {
        failed++;
        console.error(`FAIL: ${name}${detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
    }
}
const text = (r) => (r.content || []).map((c) => c.text).join('\n');
// A tool a parallel daemon release may not have yet: fine either way, but
// when missing it must say so as a tool error.
const unavailable = (r) => r.isError && /not available/.test(text(r));

const env = { ...process.env };
delete env.AIRSPACE_AGENT;
const transport = new StdioClientTransport({
    command: bin, args: ['mcp'], cwd: process.cwd(), env, stderr: 'inherit',
});
const client = new Client({ name: 'sdk-test', version: '1.0.0' });
await client.connect(transport);
check('server name', client.getServerVersion()?.name === 'airspace',
    client.getServerVersion());
check('tools capability', !!client.getServerCapabilities()?.tools);
check('ping', (await client.ping()) !== undefined);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
const want = ['advisories', 'claim', 'commit', 'contest', 'inbox', 'intent',
    'land', 'lock', 'near', 'release', 'send_message', 'status'];
check('twelve tools', JSON.stringify(names) === JSON.stringify(want), names);
for (const t of tools) {
    check(`${t.name} has a description`, t.description?.length > 10);
    check(`${t.name} schema is an object schema`,
        t.inputSchema?.type === 'object' && typeof t.inputSchema.properties === 'object');
}
check('lock requires patterns',
    tools.find((t) => t.name === 'lock')?.inputSchema.required?.includes('patterns'));

// Titles, annotations and output schemas (2025-06-18 on). Only status, near
// and advisories change nothing; none reaches outside this repository.
const readOnly = ['advisories', 'near', 'status'];
const notIdempotent = ['commit', 'intent', 'land', 'send_message'];
for (const t of tools) {
    const a = t.annotations ?? {};
    check(`${t.name} has a title`, typeof t.title === 'string' && t.title.length > 3, t.title);
    check(`${t.name} annotations repeat the title`, a.title === t.title, a);
    check(`${t.name} readOnlyHint`, a.readOnlyHint === readOnly.includes(t.name), a);
    check(`${t.name} destructiveHint false`, a.destructiveHint === false, a);
    check(`${t.name} idempotentHint`, a.idempotentHint === !notIdempotent.includes(t.name), a);
    check(`${t.name} openWorldHint false`, a.openWorldHint === false, a);
    check(`${t.name} has an object output schema`,
        t.outputSchema?.type === 'object' && Array.isArray(t.outputSchema.required) &&
        t.outputSchema.required.length > 0, t.outputSchema);
}

// The SDK checks every structuredContent against the tool's outputSchema
// and throws on a mismatch; such a throw is a failure here, and so is a
// successful result without structuredContent.
async function call(name, args, c = client) {
    let r;
    try {
        r = await c.callTool({ name, arguments: args });
    } catch (e) {
        if (!/structured content|output schema/i.test(e.message))
            throw e;
        check(`${name}: structuredContent matches the output schema`, false, e.message);
        return { isError: true, content: [], schemaMismatch: true };
    }
    if (!r.isError)
        check(`${name}: a result carries structuredContent`,
            typeof r.structuredContent === 'object', r);
    return r;
}

let r = await call('status', {});
check('status ok', !r.isError, r);
const me = r.structuredContent?.agent;
check('status names this agent', typeof me === 'string' && text(r).includes(me), r);
check('status lists bob', /\bbob\b/.test(text(r)), text(r));
check('status lists bob\'s lock', text(r).includes('src/held.c held by bob'), text(r));

r = await call('near', { path: 'src/held.c', startLine: 1, endLine: 3 });
check('near ok', !r.isError, r);
check('near names the lock holder', /held by bob/.test(text(r)), text(r));
r = await call('near', { path: 'src/free.c' });
check('near clear', !r.isError && /clear/.test(text(r)), text(r));

r = await call('intent', { files: ['src/mine.c'], summary: 'refactor', ttlSeconds: 60,
    regions: [{ path: 'src/mine.c', startLine: 1, endLine: 2 }] });
check('intent declared', !r.isError, r);

r = await call('lock', { patterns: ['src/held.c'], reason: 'mine now' });
check('lock refused is a tool error', r.isError === true, r);
check('refusal names the holder', /bob/.test(text(r)), text(r));
check('refusal names the pattern', /src\/held\.c/.test(text(r)), text(r));

r = await call('lock', { patterns: ['src/mine.c'], mode: 'exclusive', ttlSeconds: 120 });
check('lock granted', !r.isError && /locked 'src\/mine\.c'/.test(text(r)), r);
r = await call('claim', { patterns: ['src/claimed.c'], reason: 'tests' });
check('claim granted', !r.isError && /claimed/.test(text(r)), r);
r = await call('contest', { patterns: ['src/bclaim.c'] });
check('contest bob\'s claim', !r.isError && /contested/.test(text(r)), r);
r = await call('release', { patterns: ['src/mine.c', 'src/claimed.c'] });
check('release both', !r.isError && (text(r).match(/released/g) || []).length === 2, r);
r = await call('release', { patterns: ['src/held.c'] });
check('releasing bob\'s lock is refused', r.isError === true && /bob/.test(text(r)), r);

r = await call('advisories', {});
check('advisories ok', !r.isError && Array.isArray(r.structuredContent?.advisories), r);

r = await call('send_message', { to: 'bob', type: 'question', body: 'are you done with held.c?' });
check('send_message sent', !r.isError, r);
r = await call('send_message', { to: 'bob', type: 'shout', body: 'x' });
check('an unknown message type is refused', r.isError === true, r);
r = await call('inbox', {});
check('inbox read', !r.isError, r);

// commit: scoped to the given paths; refused on another agent's lock
writeFileSync('src/mine.c', 'int mine(void)\n{\n    return 1;\n}\n');
writeFileSync('src/free.c', 'int free_(void)\n{\n    return 2;\n}\n');
r = await call('commit', { message: 'mcp commit', paths: ['src/mine.c'] });
check('commit ok', !r.isError, r);
check('commit reports the commit id', /^[0-9a-f]{40}$/.test(r.structuredContent?.commit ?? ''), r);
check('commit names the file', JSON.stringify(r.structuredContent?.files) ===
    JSON.stringify([{ path: 'src/mine.c', status: 'modified' }]), r.structuredContent);
check('commit text says so', /committed [0-9a-f]{7} on main: mcp commit/.test(text(r)), text(r));
writeFileSync('src/held.c', 'int held(void)\n{\n    return 3;\n}\n');
r = await call('commit', { message: 'take held', paths: ['src/held.c'] });
check('commit of a file bob holds is a tool error', r.isError === true, r);
check('the refusal names bob and the pattern', /held by bob/.test(text(r)) &&
    /src\/held\.c/.test(text(r)), text(r));
r = await call('commit', { message: 'x', paths: ['../../etc/passwd'] });
check('commit outside the repository is a tool error', r.isError === true &&
    /outside the repository/.test(text(r)), text(r));
r = await call('commit', { message: 'x', paths: ['src/claimed.c'] });
check('commit of an unchanged file is a tool error', r.isError === true &&
    /no change/.test(text(r)), text(r));
r = await call('commit', { paths: ['src/free.c'] });
check('commit without a message is a tool error', r.isError === true &&
    /message/.test(text(r)), text(r));

r = await call('lock', { patterns: [] });
check('empty patterns is a tool error', r.isError === true && /patterns/.test(text(r)), r);
r = await call('near', { path: 'a.c', bogus: 1 });
check('unknown argument is a tool error', r.isError === true && /bogus/.test(text(r)), r);
r = await call('near', { path: '../../etc/passwd' });
check('escaping path is a tool error', r.isError === true, r);

let code = null;
try {
    await call('no_such_tool', {});
} catch (e) {
    code = e.code;
}
check('unknown tool is a JSON-RPC invalid-params error', code === -32602, code);

// The check above is live: a schema the result does not match is caught.
const strict = JSON.parse(JSON.stringify(tools));
strict.find((t) => t.name === 'status').outputSchema.required.push('no_such_member');
client.cacheToolMetadata(strict);
code = null;
try {
    await client.callTool({ name: 'status', arguments: {} });
} catch (e) {
    code = e.code;
}
check('a result that does not match its output schema is refused by the SDK', code === -32602, code);
await client.listTools();
r = await call('status', {});
check('status matches its real schema again', !r.isError, r);
await client.close();

// ---- land: a session in agent feat's worktree lands its branch ----
if (process.env.MCP_LAND_DIR) {
    const lt = new StdioClientTransport({
        command: bin, args: ['mcp'], cwd: process.env.MCP_LAND_DIR,
        env: { ...env, AIRSPACE_AGENT: 'feat' }, stderr: 'inherit',
    });
    const lc = new Client({ name: 'sdk-land', version: '1.0.0' });
    await lc.connect(lt);
    await lc.listTools(); // the output schemas the SDK checks results against
    const lcall = (name, args) => call(name, args, lc);
    r = await lcall('land', {});
    check('land out of scope is a tool error', r.isError === true &&
        /holds no lock, claim or intent on: src\/feat\.c/.test(text(r)), text(r));
    check('... naming the tool\'s argument force, not --force',
        /or use force\)/.test(text(r)) && !/--force/.test(text(r)), text(r));
    check('... structured: out_of_scope, nothing landed',
        JSON.stringify(r.structuredContent?.out_of_scope) === '["src/feat.c"]' &&
        r.structuredContent?.landed === false, r.structuredContent);
    r = await lcall('lock', { patterns: ['src/feat.c'] });
    check('feat locks src/feat.c', !r.isError, r);
    r = await lcall('land', { dry_run: true });
    check('land dry run ok', !r.isError &&
        /would land airspace\/feat into main/.test(text(r)), text(r));
    check('... nothing landed', r.structuredContent?.landed === false &&
        r.structuredContent?.dry_run === true, r.structuredContent);
    r = await lcall('land', { into: 'no-such-branch' });
    check('land into a missing branch is a tool error', r.isError === true &&
        /no-such-branch/.test(text(r)), text(r));
    r = await lcall('land', { message: 'land feat' });
    check('land ok', !r.isError &&
        /landed airspace\/feat into main: merge [0-9a-f]{7}/.test(text(r)), text(r));
    check('... structured: landed, the commit, the file',
        r.structuredContent?.landed === true &&
        /^[0-9a-f]{40}$/.test(r.structuredContent?.commit ?? '') &&
        r.structuredContent?.agent === 'feat' &&
        JSON.stringify(r.structuredContent?.changed) ===
            JSON.stringify([{ path: 'src/feat.c', status: 'added' }]),
        r.structuredContent);
    r = await lcall('land', {});
    check('landing again: nothing to land', !r.isError &&
        /already contains/.test(text(r)), text(r));
    r = await lcall('land', { force: 'yes' });
    check('a non-boolean force is a tool error', r.isError === true, r);
    await lc.close();
}

// ---- raw lines ----
function raw(lines, extraArgs = []) {
    return new Promise((resolve) => {
        const p = spawn(bin, ['mcp', ...extraArgs], { env, stdio: ['pipe', 'pipe', 'inherit'] });
        let out = '';
        p.stdout.on('data', (d) => (out += d));
        p.on('close', (status) => resolve({
            status,
            replies: out.split('\n').filter((l) => l).map((l) => JSON.parse(l)),
        }));
        for (const l of lines)
            p.stdin.write(typeof l === 'string' ? l + '\n' : JSON.stringify(l) + '\n');
        p.stdin.end();
    });
}
const init = (id, v) => ({ jsonrpc: '2.0', id, method: 'initialize',
    params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });

let res = await raw([init(1, '2024-11-05'), init(2, '2025-03-26'), init(3, '2025-06-18'),
    init(4, '2025-11-25'), init(5, '1999-01-01')], ['--agent', 'raw-agent']);
const vers = res.replies.map((x) => x.result?.protocolVersion);
check('versions negotiated', JSON.stringify(vers) ===
    JSON.stringify(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2025-11-25']), vers);

// What tools/list and tools/call carry depends on the version: titles,
// output schemas and structuredContent from 2025-06-18, annotations from
// 2025-03-26.
for (const [v, ann, out] of [['2024-11-05', false, false], ['2025-03-26', true, false],
    ['2025-06-18', true, true], ['2025-11-25', true, true]]) {
    res = await raw([init(1, v), { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'advisories' } }],
    ['--agent', 'raw-agent']);
    const list = res.replies.find((x) => x.id === 2)?.result?.tools ?? [];
    const adv = res.replies.find((x) => x.id === 3)?.result;
    check(`${v}: twelve tools listed`, list.length === 12, list.length);
    check(`${v}: annotations ${ann ? 'given' : 'left out'}`,
        list.every((t) => (t.annotations !== undefined) === ann), list[0]);
    check(`${v}: titles and output schemas ${out ? 'given' : 'left out'}`,
        list.every((t) => (t.title !== undefined) === out &&
            (t.outputSchema !== undefined) === out), list[0]);
    check(`${v}: structuredContent ${out ? 'given' : 'left out'}`, adv && !adv.isError &&
        (adv.structuredContent !== undefined) === out, adv);
}

const big = '{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"' + 'a'.repeat(5 << 20) + '"}}';
res = await raw([
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    init(2, '2025-06-18'),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    '{"jsonrpc":"2.0","id":3,',
    big,
    { jsonrpc: '2.0', id: 4, method: 'resources/list' },
    { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'nope' } },
    { jsonrpc: '2.0', id: 6, method: 'tools/call', params: 'x' },
    { id: 7, method: 'ping' },
    [{ jsonrpc: '2.0', id: 8, method: 'ping' }],
    '42',
    '',
    { jsonrpc: '2.0', id: 10, method: 'ping' },
], ['--agent', 'raw-agent']);
const by = (id) => res.replies.find((x) => x.id === id);
const codes = res.replies.map((x) => x.error?.code ?? 'ok');
check('exit 0 on EOF', res.status === 0, res.status);
check('request before initialize refused', by(1)?.error?.code === -32600, by(1));
check('notification not answered', res.replies.length === 11, res.replies.length);
check('parse error -32700', codes[2] === -32700, codes);
check('oversized line -32600', codes[3] === -32600, codes);
check('unknown method -32601', by(4)?.error?.code === -32601, by(4));
check('unknown tool -32602', by(5)?.error?.code === -32602, by(5));
check('bad params -32600', by(6)?.error?.code === -32600, by(6));
check('missing jsonrpc -32600', by(7)?.error?.code === -32600, by(7));
check('batch refused after 2025-03-26', codes[8] === -32600, codes);
check('a JSON scalar is not a request: -32600', codes[9] === -32600, codes);
check('ping after junk still answered', by(10)?.result !== undefined, by(10));

// JSON a C string cannot hold, and JSON read strictly: refused with the
// request's id (with none the caller waits for its timeout), and a path
// with a NUL is never cut short to another file.
res = await raw([
    init(1, '2025-03-26'),
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lock","arguments":{"patterns":["src/free.c\\u0000evil"]}}}',
    '{"jsonrpc":"2.0","id":3,"id":3,"method":"ping"}',
    '[]',
    { jsonrpc: '2.0', id: 4, method: 'ping' },
], ['--agent', 'raw-agent']);
const nul = res.replies.find((x) => x.id === 2);
check('a NUL in an argument: -32602 with the id', nul?.error?.code === -32602 &&
    /NUL/.test(nul.error.message), res.replies);
check('a key given twice: -32600 with the id',
    res.replies.find((x) => x.id === 3)?.error?.code === -32600, res.replies);
check('an empty batch: -32600, not "not supported"', res.replies.some((x) =>
    x.id === null && x.error?.code === -32600 && /empty batch/.test(x.error.message)),
res.replies);
check('ping after them answered', res.replies.find((x) => x.id === 4)?.result !== undefined,
    res.replies);

// maxLength counts characters, as JSON Schema does: 300 of them in 1200
// bytes are within a summary's 512
res = await raw([init(1, '2025-06-18'), { jsonrpc: '2.0', id: 2, method: 'tools/call',
    params: { name: 'intent', arguments: { files: ['src/nothing.c'],
        summary: '\u{1F600}'.repeat(300) } } }], ['--agent', 'bob']);
const long = res.replies.find((x) => x.id === 2)?.result;
check('a summary of 300 characters (1200 bytes) is within maxLength 512',
    long && !long.isError, long);

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
