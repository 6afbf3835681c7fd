// dialect_openai.mjs - placeholder until the dialect is written: matches nothing.
export default { name: 'openai', match() { return false; }, handle() {} };
