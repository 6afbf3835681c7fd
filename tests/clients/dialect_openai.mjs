// dialect_openai.mjs - the OpenAI Responses API, as far as the Codex CLI
// uses it with a custom provider (wire_api = "responses").
//
//   POST /v1/responses      the model's next move, streamed as SSE:
//                           response.created, response.output_item.added /
//                           .done for one item, response.completed (usage)
//   anything else under /v1 a side request (the model list, a compaction):
//                           answered without taking a step
//
// A step { tool, input } becomes one tool call. The tools the request
// offers decide its shape: a "custom" (freeform) tool gets a
// custom_tool_call whose input is the string input (or input.input /
// input.patch when the step gives an object), a "function" tool a
// function_call with input as its JSON arguments. A step naming a tool the
// request does not offer is still sent as a function_call (the client's
// answer to that is part of what a test may want to see). { text } is an
// assistant message that ends the turn.

function sse(res, events) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let seq = 0;
    for (const e of events) {
        e.sequence_number = seq++;
        res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    }
    res.end();
}

// The tool named name in the request's tool list, or null.
function offered(body, name) {
    for (const t of (body && Array.isArray(body.tools) ? body.tools : [])) {
        if (t && (t.name === name || (t.function && t.function.name === name))) return t;
    }
    return null;
}

// The namespace (an MCP server's tools: in the request's tools, or found by
// an earlier tool_search) holding the tool a step names as
// "<namespace>__<tool>" (mcp__airspace__lock), or null.
function namespaced(body, name) {
    const spaces = [];
    for (const t of (body && Array.isArray(body.tools) ? body.tools : [])) if (t && t.type === 'namespace') spaces.push(t);
    for (const it of (body && Array.isArray(body.input) ? body.input : [])) {
        if (it && it.type === 'tool_search_output' && Array.isArray(it.tools)) {
            for (const t of it.tools) if (t && t.type === 'namespace') spaces.push(t);
        }
    }
    for (const ns of spaces) {
        for (const t of (Array.isArray(ns.tools) ? ns.tools : [])) {
            if (t && `${ns.name}__${t.name}` === name) return { namespace: ns.name, name: t.name };
        }
    }
    return null;
}

function offeredType(body, type) {
    return (body && Array.isArray(body.tools) ? body.tools : []).some((t) => t && t.type === type);
}

function freeformText(input) {
    if (typeof input === 'string') return input;
    if (input && typeof input.input === 'string') return input.input;
    if (input && typeof input.patch === 'string') return input.patch;
    return JSON.stringify(input ?? {});
}

function item(step, body, ctx) {
    if (step.tool === 'tool_search' && offeredType(body, 'tool_search')) {
        return { type: 'tool_search_call', id: ctx.id('ts_'), status: 'completed', call_id: ctx.id('call_'), execution: 'client', arguments: step.input ?? {} };
    }
    if (step.tool) {
        const t = offered(body, step.tool);
        if (t && t.type === 'custom') {
            return { type: 'custom_tool_call', id: ctx.id('ctc_'), status: 'completed', call_id: ctx.id('call_'), name: step.tool, input: freeformText(step.input) };
        }
        const args = typeof step.input === 'string' ? step.input : JSON.stringify(step.input ?? {});
        const call = { type: 'function_call', id: ctx.id('fc_'), status: 'completed', call_id: ctx.id('call_'), name: step.tool, arguments: args };
        const ns = t ? null : namespaced(body, step.tool);
        if (ns) {
            call.namespace = ns.namespace;
            call.name = ns.name;
        }
        return call;
    }
    return {
        type: 'message', id: ctx.id('msg_'), status: 'completed', role: 'assistant',
        content: [{ type: 'output_text', text: String(step.text ?? ''), annotations: [] }],
    };
}

function respond(body, res, ctx, it, tokens) {
    const id = ctx.id('resp_');
    const model = (body && body.model) || 'gpt-test';
    const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, output: [] };
    const usage = {
        input_tokens: 100, input_tokens_details: { cached_tokens: 0 },
        output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110,
    };
    if (Number.isInteger(tokens)) {
        usage.input_tokens = tokens - 10;
        usage.total_tokens = tokens;
    }
    const ev = [{ type: 'response.created', response: { ...base, status: 'in_progress' } }];
    const added = it.type === 'message' ? { ...it, status: 'in_progress', content: [] } : { ...it, status: 'in_progress' };
    ev.push({ type: 'response.output_item.added', output_index: 0, item: added });
    if (it.type === 'message') {
        const text = it.content[0].text;
        ev.push({ type: 'response.content_part.added', item_id: it.id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
        ev.push({ type: 'response.output_text.delta', item_id: it.id, output_index: 0, content_index: 0, delta: text });
        ev.push({ type: 'response.output_text.done', item_id: it.id, output_index: 0, content_index: 0, text });
        ev.push({ type: 'response.content_part.done', item_id: it.id, output_index: 0, content_index: 0, part: it.content[0] });
    }
    ev.push({ type: 'response.output_item.done', output_index: 0, item: it });
    ev.push({ type: 'response.completed', response: { ...base, status: 'completed', output: [it], usage } });
    sse(res, ev);
}

function json(res, status, obj) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(obj));
}

export default {
    name: 'openai',
    match(method, pathname) {
        return pathname === '/v1/responses' || pathname.startsWith('/v1/responses/') || pathname === '/v1/models' ||
            pathname.startsWith('/v1/models/');
    },
    handle(req, url, body, res, ctx) {
        if (req.method === 'POST' && url.pathname === '/v1/responses') {
            // a request without tools is not the agent's turn (a title, a summary)
            if (!body || !Array.isArray(body.tools) || body.tools.length === 0) {
                ctx.side();
                respond(body, res, ctx, item({ text: 'ok' }, body, ctx));
                return;
            }
            const step = ctx.step();
            respond(body, res, ctx, item(step, body, ctx), step.tokens);
            return;
        }
        ctx.side();
        if (url.pathname === '/v1/models') {
            json(res, 200, { object: 'list', data: [], models: [] });
            return;
        }
        json(res, 404, { error: { message: `no scripted answer for ${req.method} ${url.pathname}` } });
    },
};
