// Turns the JSON Schemas of the API's routes into Python type expressions, objects into named TypedDicts.

type Schema = Record<string, unknown>;

/** A name's parts as PascalCase: "rss_bytes" → "RssBytes", "x-file-mode" → "XFileMode", "*" → "Rest". */
export function pascal(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.length ? words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') : 'Rest';
}

/** A value as a Python literal (strings JSON-quoted: the escapes JSON uses are Python's too). */
function literal(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return JSON.stringify(value);
}

function oneLine(text: unknown): string {
  return typeof text === 'string' ? text.replace(/\s+/g, ' ').trim() : '';
}

/**
 * Collects the TypedDicts a set of schemas needs, each defined before its first use. Names come
 * from where a schema sits (route, part, property), never from its shape, so that adding a route
 * does not rename another's types; two places mapping to one name fail the generation.
 */
export class PythonTypes {
  readonly definitions: string[] = [];
  readonly #names = new Set<string>();

  /** The Python type of `schema`; an object with properties becomes the TypedDict `name`. */
  type(schema: unknown, name: string): string {
    if (schema === true || schema === undefined || schema === false || !schema || typeof schema !== 'object') return 'Any';
    const s = schema as Schema;
    if ('const' in s) return s['const'] === null ? 'None' : `Literal[${literal(s['const'])}]`;
    if (Array.isArray(s['enum'])) return this.#enum(s['enum']);
    for (const key of ['oneOf', 'anyOf'] as const) {
      if (Array.isArray(s[key])) return union(s[key].map((x, i) => this.type(x, `${name}Option${i + 1}`)));
    }
    // allOf would need a merged TypedDict; the routes use none, so it widens to Any rather than guess.
    if (Array.isArray(s['allOf'])) return 'Any';
    const types = Array.isArray(s['type']) ? (s['type'] as string[]) : typeof s['type'] === 'string' ? [s['type']] : s['properties'] ? ['object'] : [];
    if (types.length === 0) return 'Any';
    return union(types.map((t) => this.#oneType(t, s, name)));
  }

  #enum(values: unknown[]): string {
    const plain = values.filter((v) => v !== null && typeof v !== 'object');
    const parts = plain.length ? [`Literal[${plain.map(literal).join(', ')}]`] : [];
    if (values.includes(null)) parts.push('None');
    return parts.length ? union(parts) : 'Any';
  }

  #oneType(type: string, s: Schema, name: string): string {
    switch (type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return Array.isArray(s['prefixItems']) ? 'list[Any]' : `list[${this.type(s['items'] ?? true, `${name}Item`)}]`;
      case 'object':
        return this.#object(s, name);
      default:
        return 'Any';
    }
  }

  #object(s: Schema, name: string): string {
    const properties = Object.entries((s['properties'] ?? {}) as Record<string, unknown>);
    const extra = s['additionalProperties'];
    if (properties.length === 0) return extra && extra !== true ? `dict[str, ${this.type(extra, `${name}Value`)}]` : 'dict[str, Any]';
    if (this.#names.has(name)) throw new Error(`two schemas map to the Python type name ${name}`);
    this.#names.add(name);
    const required = new Set(Array.isArray(s['required']) ? (s['required'] as string[]) : []);
    const fields: string[] = [];
    for (const [key, child] of properties) {
      const doc = oneLine((child as Schema | undefined)?.['description']);
      const type = this.type(child, `${name}${pascal(key)}`);
      fields.push(`${doc ? `    # ${doc}\n` : ''}    ${JSON.stringify(key)}: ${required.has(key) ? `Required[${type}]` : type},\n`);
    }
    // Functional syntax: keys such as "x-file-mode", "*" or "from" are not identifiers.
    // Keys beyond the declared ones (additionalProperties) are allowed by the API but not typed here.
    const doc = oneLine(s['description']);
    this.definitions.push(`${doc ? `# ${doc}\n` : ''}${name} = TypedDict(${JSON.stringify(name)}, {\n${fields.join('')}}, total=False)\n`);
    return name;
  }
}

function union(types: string[]): string {
  return [...new Set(types)].join(' | ');
}
