// What a bundle imports for node:util: see `builtinAliases` in infra/lib/beacon-function.ts.
module.exports = process.getBuiltinModule("node:util");
