// Precompiles the manifest schema into a standalone validator, so the CLI never loads Ajv
// or compiles a schema at start-up.
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { generatedHeader } from './header.js';

/** Ajv options shared by the precompiled validator: all errors, defaults applied in place. */
export const manifestAjvOptions = { allErrors: true, useDefaults: true, strict: true } as const;

/** ESM source of the validator for `schema`. */
export function generateValidator(schema: object): string {
  const ajv = new Ajv2020({ ...manifestAjvOptions, code: { source: true, esm: true } });
  const validate = ajv.compile(schema);
  // Ajv's standalone output still require()s its runtime helpers; turn those into ESM imports
  // (with the file extension Node's ESM loader needs for a deep import).
  const code = standaloneCode
    .default(ajv, validate)
    .replace(/const (func\d+) = require\("(ajv\/dist\/runtime\/[a-z0-9_]+)"\)\.default;/g, 'import $1_module from "$2.js";\nconst $1 = $1_module.default;');
  // Emitted as TypeScript (unchecked) so the compiler copies it to dist/ and callers get a type.
  return (
    generatedHeader('js') +
    '// @ts-nocheck\n' +
    "import type { ErrorObject } from 'ajv';\n" +
    code.replace('"use strict";', '').replace('export const validate = validate20;', '').replace('export default validate20;', '') +
    '\n/** Validates a raw manifest in place: applies schema defaults, sets `errors` on failure. */\n' +
    'export const validateManifestShape = validate20 as unknown as {\n' +
    '  (data: unknown): boolean;\n' +
    '  errors?: ErrorObject[] | null;\n' +
    '};\n'
  );
}
