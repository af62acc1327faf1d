#!/usr/bin/env node
// Compiles every schema Prism validates against (request bodies and
// parameters, response bodies and headers) of an OpenAPI description, the
// way Prism 5's validator does: the operations as Prism reads them, ajv with
// Prism's options. Prism swallows a schema ajv refuses and then validates
// nothing against it, so a violation would pass unseen; this names every
// such schema and exits 1. Usage: node compile-schemas.js openapi.yaml
'use strict';

const path = require('path');
const prismHttp = path.dirname(require.resolve('@stoplight/prism-http/package.json'));
const from = (name) => require(require.resolve(name, { paths: [prismHttp] }));
const { getHttpOperationsFromSpec } = require('@stoplight/prism-http');
const Ajv = from('ajv').default;
const addFormats = from('ajv-formats').default;
const mergeAllOf = from('@stoplight/json-schema-merge-allof');

// prism-http/dist/validator/validators/utils.js: baseAjvOptions.
const options = { allErrors: true, allowUnionTypes: true, allowMatchingProperties: true, strict: false, logger: false };
const ajv = { true: new Ajv({ ...options, coerceTypes: true }), false: new Ajv({ ...options, coerceTypes: false }) };
addFormats(ajv.true);
addFormats(ajv.false);

// prism-http/dist/validator/validators/body.js: withoutAllOf, before a body is validated.
function withoutAllOf(schema) {
  try {
    return mergeAllOf(schema, { deep: true, ignoreAdditionalProperties: true });
  } catch (_) {
    return schema;
  }
}

async function main() {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node compile-schemas.js openapi.yaml');
    process.exit(2);
  }
  const operations = await getHttpOperationsFromSpec(path.resolve(file));
  let compiled = 0;
  const failures = [];
  const compile = (where, schema, coerce, bundle) => {
    if (!schema) return;
    try {
      ajv[coerce].compile({ ...schema, __bundled__: bundle });
      compiled++;
    } catch (e) {
      const message = e.message.length > 500 ? `${e.message.slice(0, 500)}...` : e.message;
      failures.push(`${where}: ${message}`);
    }
  };
  for (const op of operations) {
    const name = `${op.method.toUpperCase()} ${op.path}`;
    const bundle = op.__bundled__;
    for (const content of (op.request && op.request.body && op.request.body.contents) || []) {
      compile(`${name} request body ${content.mediaType}`, withoutAllOf(content.schema), false, bundle);
    }
    for (const kind of ['query', 'headers', 'path', 'cookie']) {
      for (const param of (op.request && op.request[kind]) || []) {
        compile(`${name} ${kind} parameter ${param.name}`, param.schema, true, bundle);
      }
    }
    for (const response of op.responses || []) {
      for (const content of response.contents || []) {
        compile(`${name} response ${response.code} ${content.mediaType}`, withoutAllOf(content.schema), false, bundle);
      }
      for (const header of response.headers || []) {
        compile(`${name} response ${response.code} header ${header.name}`, header.schema, true, bundle);
      }
    }
  }
  for (const f of failures) console.log(f);
  console.log(`${operations.length} operations, ${compiled} schemas compiled, ${failures.length} refused`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
