// What a bundle imports for node:process: see `builtinAliases` in infra/lib/beacon-function.ts.
module.exports = process.getBuiltinModule("node:process");
