// dialect_anthropic.mjs - placeholder until the dialect is written: matches nothing.
export default { name: 'anthropic', match() { return false; }, handle() {} };
