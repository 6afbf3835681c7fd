// dialect_gemini.mjs - the Gemini API (generativelanguage v1beta) as far as
// the Gemini CLI needs it:
//
//   POST /v1beta/models/<model>:streamGenerateContent?alt=sse   the agent
//   POST /v1beta/models/<model>:generateContent                 utilities
//   POST /v1beta/models/<model>:countTokens                     token counts
//   GET  /v1beta/models[/<model>]                               (empty) model list
//
// A request is a step of the script when it is the agent's own turn: it
// offers tools and asks for no JSON. A request asking for JSON (the model
// router's classifier, "complexity_score" or "model_choice"; the
// next-speaker check; the loop detector; the edit corrector) is a side
// request answered with a value of its response schema (the first enum
// value, 1 for numbers, "user" for next_speaker), and so is any request
// without tools (a summary, a compression) and a token count. A { tool,
// input } step becomes one functionCall part, a { text } step a text part;
// both end with finishReason STOP. Streamed answers are one SSE event.
const ROUTE = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

function usage(body) {
    const chars = JSON.stringify((body && body.contents) || []).length;
    const prompt = Math.max(1, Math.ceil(chars / 4));
    return { promptTokenCount: prompt, candidatesTokenCount: 8, totalTokenCount: prompt + 8 };
}

function schemaOf(body) {
    const g = (body && (body.generationConfig || body.config)) || {};
    return g.responseJsonSchema || g.responseSchema || null;
}

// A value that satisfies a (small) JSON schema: the first enum value, the
// preferred answers of the CLI's own utility prompts.
function sample(schema, key) {
    if (!schema || typeof schema !== 'object')
        return null;
    const type = String(schema.type || '').toLowerCase();
    if (Array.isArray(schema.enum) && schema.enum.length) {
        // the router: the cheaper model; the next-speaker check: the user
        if (key === 'next_speaker' && schema.enum.includes('user'))
            return 'user';
        return schema.enum[0];
    }
    if (type === 'object' || schema.properties) {
        const o = {};
        for (const [k, v] of Object.entries(schema.properties || {}))
            o[k] = sample(v, k);
        return o;
    }
    if (type === 'array')
        return [];
    if (type === 'boolean')
        return false;
    if (type === 'number' || type === 'integer')
        return 1; // the router's complexity score is 1 to 100
    if (key === 'next_speaker')
        return 'user';
    return 'scripted';
}

// The JSON a utility request gets: by its schema, or by what its prompt
// asks for when the schema is only in the prompt text.
function utilityAnswer(body) {
    const schema = schemaOf(body);
    if (schema)
        return sample(schema);
    const text = JSON.stringify(body || {});
    if (text.includes('model_choice'))
        return { reasoning: 'scripted', model_choice: 'flash' };
    if (text.includes('next_speaker'))
        return { reasoning: 'scripted', next_speaker: 'user' };
    return {};
}

function candidate(parts) {
    return { content: { role: 'model', parts }, finishReason: 'STOP', index: 0 };
}

function partsOf(step, ctx) {
    if (step.tool)
        return [{ functionCall: { id: ctx.id('call_'), name: step.tool, args: step.input || {} } }];
    return [{ text: String(step.text ?? '') }];
}

function send(res, url, model, parts, body) {
    const reply = { candidates: [candidate(parts)], usageMetadata: usage(body), modelVersion: model, responseId: 'r' + Date.now() };
    if (url.pathname.endsWith(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.end(`data: ${JSON.stringify(reply)}\r\n\r\n`);
    } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply));
    }
}

export default {
    name: 'gemini',
    match(method, pathname) {
        return (method === 'POST' && ROUTE.test(pathname)) ||
            (method === 'GET' && /^\/v1(?:beta|alpha)\/models(\/[^/:]+)?$/.test(pathname));
    },
    handle(req, url, body, res, ctx) {
        const m = ROUTE.exec(url.pathname);
        if (!m) { // the model list
            ctx.side();
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ models: [] }));
            return;
        }
        const [, model, op] = m;
        if (op === 'countTokens') {
            ctx.side();
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ totalTokens: usage(body).promptTokenCount }));
            return;
        }
        const json = schemaOf(body) ||
            ((body && body.generationConfig && body.generationConfig.responseMimeType) === 'application/json');
        if (json) {
            ctx.side();
            send(res, url, model, [{ text: JSON.stringify(utilityAnswer(body)) }], body);
            return;
        }
        if (!body || !Array.isArray(body.tools) || !body.tools.length) {
            ctx.side();
            send(res, url, model, [{ text: 'ok' }], body);
            return;
        }
        send(res, url, model, partsOf(ctx.step(), ctx), body);
    },
};
