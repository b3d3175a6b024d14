// What a bundle imports for node:http: see `builtinAliases` in infra/lib/beacon-function.ts.
module.exports = process.getBuiltinModule("node:http");
