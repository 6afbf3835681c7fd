// dialect_openai.mjs - the OpenAI Responses API, as far as the Codex CLI
// (0.169) uses it with a custom provider (wire_api = "responses").
//
//   POST /v1/responses   the model's next move, streamed as SSE:
//                        response.created, response.output_item.added and
//                        .done for one item (for a message also its
//                        content part and text delta), response.completed
//                        with usage
//   GET /v1/models       an empty model list (a side request)
//
// A /v1/responses request that is not the agent's own turn is a side
// request answered "ok": one without tools (the summary of a compaction),
// a subagent's (the guardian reviewing an approval request), or one whose
// turn metadata names another request kind than "turn".
//
// A step { tool, input } becomes one tool call, shaped by what the request
// offers:
//   - a "custom" tool (Codex's freeform apply_patch): custom_tool_call with
//     the input string (or input.input / input.patch of an object);
//   - tool_search (Codex defers MCP tools behind it): tool_search_call with
//     input as its arguments ({query, limit});
//   - "<namespace>__<tool>" where an offered namespace, or one an earlier
//     tool_search returned, holds the tool (mcp__airspace__lock):
//     function_call with that namespace and name;
//   - anything else: function_call with input as its JSON arguments (also a
//     tool the request does not offer: the client's answer to that is for
//     the test to see).
// { text } is an assistant message, which ends the turn. A step may carry
// "tokens": N, the total_tokens its usage reports (N above the client's
// auto-compaction limit makes it compact before its next request).

function sse(res, events) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let seq = 0;
    for (const e of events) {
        e.sequence_number = seq++;
        res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    }
    res.end();
}

function tools(body) {
    return body && Array.isArray(body.tools) ? body.tools : [];
}

// The tool named name in the request's tool list, or null.
function offered(body, name) {
    return tools(body).find((t) => t && (t.name === name || (t.function && t.function.name === name))) || null;
}

function offeredType(body, type) {
    return tools(body).some((t) => t && t.type === type);
}

// The namespace (an MCP server's tools: among the request's tools, or
// returned by an earlier tool_search) holding the tool a step names
// "<namespace>__<tool>", as {namespace, name}; or null.
function namespaced(body, name) {
    const spaces = tools(body).filter((t) => t && t.type === 'namespace');
    for (const it of (body && Array.isArray(body.input) ? body.input : [])) {
        if (it && it.type === 'tool_search_output' && Array.isArray(it.tools)) {
            spaces.push(...it.tools.filter((t) => t && t.type === 'namespace'));
        }
    }
    for (const ns of spaces) {
        for (const t of (Array.isArray(ns.tools) ? ns.tools : [])) {
            if (t && `${ns.name}__${t.name}` === name) return { namespace: ns.name, name: t.name };
        }
    }
    return null;
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
    if (Number.isInteger(tokens) && tokens > 10) {
        usage.input_tokens = tokens - 10;
        usage.total_tokens = tokens;
    }
    const ev = [{ type: 'response.created', response: { ...base, status: 'in_progress' } }];
    const added = it.type === 'message' ? { ...it, status: 'in_progress', content: [] } : { ...it, status: 'in_progress' };
    ev.push({ type: 'response.output_item.added', output_index: 0, item: added });
    if (it.type === 'message') {
        const text = it.content[0].text;
        const at = { item_id: it.id, output_index: 0, content_index: 0 };
        ev.push({ type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } });
        ev.push({ type: 'response.output_text.delta', ...at, delta: text });
        ev.push({ type: 'response.output_text.done', ...at, text });
        ev.push({ type: 'response.content_part.done', ...at, part: it.content[0] });
    }
    ev.push({ type: 'response.output_item.done', output_index: 0, item: it });
    ev.push({ type: 'response.completed', response: { ...base, status: 'completed', output: [it], usage } });
    sse(res, ev);
}

// Not the agent's own turn (see the header).
function isSide(body) {
    if (!body || tools(body).length === 0) return true;
    const meta = body.client_metadata || {};
    if (meta['x-openai-subagent']) return true;
    try {
        const turn = JSON.parse(meta['x-codex-turn-metadata'] || '{}');
        if (turn.subagent_kind || (turn.request_kind && turn.request_kind !== 'turn')) return true;
    } catch {
        // not JSON: judged by the rest
    }
    return false;
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
            if (isSide(body)) {
                ctx.side();
                respond(body, res, ctx, item({ text: 'ok' }, body, ctx));
                return;
            }
            const step = ctx.step();
            respond(body, res, ctx, item(step, body, ctx), step.tokens);
            return;
        }
        ctx.side();
        if (req.method === 'GET' && url.pathname === '/v1/models') {
            json(res, 200, { object: 'list', data: [], models: [] });
            return;
        }
        json(res, 404, { error: { message: `no scripted answer for ${req.method} ${url.pathname}` } });
    },
};
