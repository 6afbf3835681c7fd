// dialect_gemini.mjs - placeholder until the dialect is written: matches nothing.
export default { name: 'gemini', match() { return false; }, handle() {} };
