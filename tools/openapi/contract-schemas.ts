// What the OpenAPI document needs from the contracts' TypeScript source, which no runtime metadata
// carries: the JSON schemas of the success replies (the `ReplyTypes` interface in
// libs/contracts/src/routes/reply-types.ts) and the JSDoc of request class fields (parameter and
// body field descriptions). Read with the TypeScript compiler API; `npm run sdk:generate` writes
// them to contract-schemas.generated.ts, and tools/openapi/contract-schemas.spec.ts fails when that
// file and the source differ.
import path from 'node:path';
import ts from 'typescript';

export type JsonSchema = { [keyword: string]: unknown };

const ROOT = path.resolve(__dirname, '../..');
const CONTRACTS = path.join(ROOT, 'libs/contracts/src');
const REPLY_TYPES_FILE = path.join(CONTRACTS, 'routes/reply-types.ts');
export const GENERATED_FILE = path.join(CONTRACTS, 'routes/contract-schemas.generated.ts');

export interface ContractSchemas {
  /** Schema of each `ReplyTypes` entry and of every named contract type they use. */
  replies: Record<string, JsonSchema>;
  /** Class name to field name to the field's JSDoc, for every class of libs/contracts with documented fields. */
  fieldDocs: Record<string, Record<string, string>>;
}

/** Deepest nesting of anonymous types (a guard: the contracts nest about six levels). */
const MAX_DEPTH = 24;

/**
 * Schemas of every entry of `ReplyTypes` plus every named contract type they use, keyed by name.
 * A type alias or interface declared in libs/contracts (and not generic) becomes its own schema
 * referenced with `$ref: '#/components/schemas/<name>'`; anything else is inlined. Numbers are
 * `number` (TypeScript has no integer); `unknown` is `{}`; JSDoc comments become descriptions.
 */
export function generateContractSchemas(): ContractSchemas {
  const program = ts.createProgram([path.join(CONTRACTS, 'index.ts')], {
    strict: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(REPLY_TYPES_FILE);
  if (!source) throw new Error(`cannot read ${REPLY_TYPES_FILE}`);
  const replyTypes = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'ReplyTypes',
  );
  if (!replyTypes) throw new Error('libs/contracts/src/routes/reply-types.ts declares no ReplyTypes interface');

  const schemas: Record<string, JsonSchema> = {};
  const inContracts = (declaration: ts.Declaration | undefined) =>
    declaration !== undefined && path.resolve(declaration.getSourceFile().fileName).startsWith(CONTRACTS + path.sep);

  const describe = (symbol: ts.Symbol | undefined): string | undefined => {
    const text = symbol ? ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() : '';
    return text
      ? text
          .split('\n')
          .map((line) => line.trim())
          .join(' ')
      : undefined;
  };

  /** The name a type is published under, if it is a named, non-generic contract type. */
  const nameOf = (type: ts.Type): { name: string; symbol: ts.Symbol } | undefined => {
    if (type.aliasSymbol) {
      if (type.aliasTypeArguments?.length) return undefined;
      return inContracts(type.aliasSymbol.declarations?.[0]) ? { name: type.aliasSymbol.name, symbol: type.aliasSymbol } : undefined;
    }
    const symbol = type.getSymbol();
    if (!symbol || !(type.flags & ts.TypeFlags.Object)) return undefined;
    const objectFlags = (type as ts.ObjectType).objectFlags;
    if (!(objectFlags & ts.ObjectFlags.Interface)) return undefined;
    if ((type as ts.InterfaceType).typeParameters?.length) return undefined;
    return inContracts(symbol.declarations?.[0]) ? { name: symbol.name, symbol } : undefined;
  };

  const withoutUndefined = (types: readonly ts.Type[]) => types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));

  function convert(type: ts.Type, depth: number, topLevel = false): JsonSchema {
    if (depth > MAX_DEPTH) throw new Error(`reply type nests deeper than ${MAX_DEPTH}: ${checker.typeToString(type)}`);
    const named = topLevel ? undefined : nameOf(type);
    if (named) {
      if (!schemas[named.name]) {
        schemas[named.name] = {}; // placeholder: a type that refers to itself ends here
        const schema = convert(type, depth + 1, true);
        const description = describe(named.symbol);
        schemas[named.name] = description && !schema.$ref ? { description, ...schema } : schema;
      }
      return { $ref: `#/components/schemas/${named.name}` };
    }
    return structural(type, depth);
  }

  function structural(type: ts.Type, depth: number): JsonSchema {
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (f & ts.TypeFlags.Never) return { not: {} };
    if (f & ts.TypeFlags.Null) return { type: 'null' };
    if (f & ts.TypeFlags.StringLiteral) return { type: 'string', enum: [(type as ts.StringLiteralType).value] };
    if (f & ts.TypeFlags.NumberLiteral) return { type: 'number', enum: [(type as ts.NumberLiteralType).value] };
    if (f & ts.TypeFlags.BooleanLiteral) return { type: 'boolean', enum: [checker.typeToString(type) === 'true'] };
    if (f & ts.TypeFlags.String) return { type: 'string' };
    if (f & ts.TypeFlags.Number) return { type: 'number' };
    if (f & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (type.isUnion()) return union(type, depth);
    if (checker.isArrayType(type)) {
      const [item] = checker.getTypeArguments(type as ts.TypeReference);
      return { type: 'array', items: convert(item, depth + 1) };
    }
    if (checker.isTupleType(type)) {
      const items = checker.getTypeArguments(type as ts.TypeReference).map((t) => convert(t, depth + 1));
      return { type: 'array', prefixItems: items, minItems: items.length, maxItems: items.length };
    }
    if (f & ts.TypeFlags.Object || type.isIntersection()) return object(type, depth);
    throw new Error(`no JSON schema for the type ${checker.typeToString(type)}`);
  }

  function union(type: ts.UnionType, depth: number): JsonSchema {
    let members = withoutUndefined(type.types);
    const nullable = members.some((t) => t.flags & ts.TypeFlags.Null);
    members = members.filter((t) => !(t.flags & ts.TypeFlags.Null));
    // `boolean` is the union true | false.
    const booleans = members.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    let schemas: JsonSchema[] = [];
    if (booleans.length === 2) {
      members = members.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral));
      schemas.push({ type: 'boolean' });
    }
    const strings = members.filter((t) => t.flags & ts.TypeFlags.StringLiteral).map((t) => (t as ts.StringLiteralType).value);
    const numbers = members.filter((t) => t.flags & ts.TypeFlags.NumberLiteral).map((t) => (t as ts.NumberLiteralType).value);
    members = members.filter((t) => !(t.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral)));
    if (strings.length) schemas.push({ type: 'string', enum: strings });
    if (numbers.length) schemas.push({ type: 'number', enum: numbers });
    schemas.push(...members.map((t) => convert(t, depth + 1)));
    if (nullable) {
      const only = schemas.length === 1 ? schemas[0] : undefined;
      if (only && typeof only.type === 'string' && !only.$ref) {
        const { enum: values, ...rest } = only;
        return { ...rest, type: [only.type, 'null'], ...(Array.isArray(values) ? { enum: [...values, null] } : {}) };
      }
      schemas = [...schemas, { type: 'null' }];
    }
    if (schemas.length === 1) return schemas[0];
    return exclusive(schemas) ? { oneOf: schemas } : { anyOf: schemas };
  }

  /** The JSON type a schema requires (through its `$ref`), if it names exactly one. */
  function jsonTypeOf(schema: JsonSchema): unknown {
    const ref = typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
    return ref === undefined ? schema.type : schemas[ref]?.type;
  }

  /**
   * Whether no value can match two of the schemas: each requires its own JSON type (a list's paged
   * object or its bare array), so the union is a `oneOf` (clients pick the shape by type).
   */
  function exclusive(members: JsonSchema[]): boolean {
    const types = members.map(jsonTypeOf);
    return types.every((type) => typeof type === 'string') && new Set(types).size === types.length;
  }

  function object(type: ts.Type, depth: number): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      const propertyType = declaration ? checker.getTypeOfSymbolAtLocation(property, declaration) : checker.getTypeOfSymbol(property);
      if (propertyType.getCallSignatures().length > 0) continue;
      const schema = convert(propertyType, depth + 1);
      const description = describe(property);
      properties[property.name] = description ? (schema.$ref ? { allOf: [schema], description } : { description, ...schema }) : schema;
      if (!(property.flags & ts.SymbolFlags.Optional)) required.push(property.name);
    }
    const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & (ts.TypeFlags.String | ts.TypeFlags.Number));
    const schema: JsonSchema = { type: 'object' };
    if (Object.keys(properties).length > 0) schema.properties = properties;
    if (required.length > 0) schema.required = required;
    if (index) schema.additionalProperties = index.type.flags & ts.TypeFlags.Never ? false : convert(index.type, depth + 1);
    else if (Object.keys(properties).length === 0) schema.additionalProperties = false; // `Record<string, never>`, `{}`
    return schema;
  }

  for (const member of replyTypes.members) {
    if (!ts.isPropertySignature(member) || !member.type) continue;
    const key = member.name.getText(source);
    const type = checker.getTypeFromTypeNode(member.type);
    const schema = convert(type, 0);
    const description = describe(checker.getSymbolAtLocation(member.name));
    // The entry's own name: a schema of its own when the type is published under another name.
    if (schema.$ref !== `#/components/schemas/${key}`) schemas[key] = description ? { description, ...schema } : schema;
  }
  const fieldDocs: Record<string, Record<string, string>> = {};
  for (const file of program.getSourceFiles()) {
    if (!path.resolve(file.fileName).startsWith(CONTRACTS + path.sep) || file.fileName.endsWith('.spec.ts')) continue;
    for (const statement of file.statements) {
      if (!ts.isClassDeclaration(statement) || !statement.name) continue;
      const docs: Record<string, string> = {};
      for (const member of statement.members) {
        if (!ts.isPropertyDeclaration(member) || !member.name) continue;
        const text = describe(checker.getSymbolAtLocation(member.name));
        if (text) docs[member.name.getText(file)] = text;
      }
      if (Object.keys(docs).length === 0) continue;
      if (fieldDocs[statement.name.text]) throw new Error(`two classes named ${statement.name.text} in libs/contracts`);
      fieldDocs[statement.name.text] = docs;
    }
  }
  return { replies: sorted(schemas), fieldDocs: sorted(fieldDocs) };
}

const sorted = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The generated module's text (the caller formats it with prettier). */
export function renderContractSchemasModule({ replies, fieldDocs }: ContractSchemas): string {
  return [
    '// Generated by `npm run sdk:generate` (tools/openapi/contract-schemas.ts) from the contracts: do not edit.',
    '// The OpenAPI document takes its response schemas and field descriptions from here;',
    '// tools/openapi/contract-schemas.spec.ts fails when this file and the contracts differ.',
    '',
    '/** JSON schema of each entry of ReplyTypes (reply-types.ts) and of the named types they use. */',
    `export const REPLY_SCHEMAS: Readonly<Record<string, Record<string, unknown>>> = ${JSON.stringify(replies)};`,
    '',
    '/** The JSDoc of request class fields: class name, field name, text. */',
    `export const FIELD_DOCS: Readonly<Record<string, Readonly<Record<string, string>>>> = ${JSON.stringify(fieldDocs)};`,
    '',
  ].join('\n');
}
