// dialect_anthropic.mjs - the Anthropic Messages API as far as Claude Code
// uses it, for modelserver.mjs.
//
//   POST /v1/messages[?beta=true]        streaming (SSE) or not
//   POST /v1/messages/count_tokens       a side request: a fixed count
//
// A request for the model's next move takes the script's next step: a
// { tool, input } step becomes one tool_use block (stop_reason tool_use),
// a { text } step a text block (stop_reason end_turn). Side requests take
// no step and get a harmless answer:
//   - a request that offers no tools (a title, a quota or topic check on a
//     small model): the text "ok";
//   - a compaction (the client asks for a summary of the conversation, with
//     the instruction not to call tools): a <summary> block, as the client
//     wants it.
// The stream is what the API sends: message_start, per block
// content_block_start / content_block_delta (text_delta or
// input_json_delta) / content_block_stop, message_delta with the
// stop_reason and usage, message_stop.

// The text blocks of the last message, joined.
function lastText(body) {
    const msgs = body && Array.isArray(body.messages) ? body.messages : [];
    const last = msgs[msgs.length - 1];
    if (!last) return '';
    if (typeof last.content === 'string') return last.content;
    if (!Array.isArray(last.content)) return '';
    return last.content.filter((b) => b && b.type === 'text').map((b) => b.text).join('\n');
}

function isCompaction(body) {
    const t = lastText(body);
    return /Respond with TEXT ONLY/.test(t) && /summary/i.test(t);
}

function offersTools(body) {
    return body && Array.isArray(body.tools) && body.tools.length > 0;
}

function usage(output) {
    return { input_tokens: 10, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

// Answer with the content blocks (text or tool_use) and the stop reason,
// streamed when the request asked for a stream.
function answer(body, res, ctx, content, stop) {
    const model = (body && body.model) || 'claude-scripted';
    const id = ctx.id('msg_');
    if (!body || !body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage: usage(5) }));
        return;
    }
    const ev = [{ type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: usage(1) } }];
    content.forEach((b, index) => {
        if (b.type === 'text') {
            ev.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
            ev.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
        } else {
            ev.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
            ev.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
        }
        ev.push({ type: 'content_block_stop', index });
    });
    ev.push({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
    ev.push({ type: 'message_stop' });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const e of ev) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    res.end();
}

export default {
    name: 'anthropic',
    match(method, pathname) {
        return method === 'POST' && (pathname === '/v1/messages' || pathname === '/v1/messages/count_tokens');
    },
    handle(req, url, body, res, ctx) {
        if (url.pathname === '/v1/messages/count_tokens') {
            ctx.side();
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ input_tokens: 100 }));
            return;
        }
        if (isCompaction(body)) {
            ctx.side();
            answer(body, res, ctx, [{ type: 'text', text: '<summary>The scripted session so far.</summary>' }], 'end_turn');
            return;
        }
        if (!offersTools(body)) {
            ctx.side();
            answer(body, res, ctx, [{ type: 'text', text: 'ok' }], 'end_turn');
            return;
        }
        const step = ctx.step();
        if (step.tool) {
            const b = { type: 'tool_use', id: ctx.id('toolu_'), name: step.tool, input: step.input || {} };
            answer(body, res, ctx, [b], 'tool_use');
        } else {
            answer(body, res, ctx, [{ type: 'text', text: String(step.text ?? '') }], 'end_turn');
        }
    },
};
