/**
 * The contract as the engine reads it (spec/ makes it): operations, their parameters, bodies and responses,
 * the services they belong to. Plain JSON-serialisable data.
 */

export type JsonSchema = Record<string, unknown> | boolean;

/** QUERY (a safe method with a body, draft-ietf-httpbis-safe-method-w-body) is only sent as a method a contract does not document. */
export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS' | 'TRACE' | 'QUERY';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
  /** JSON pointer of the parameter inside its description file. */
  pointer: string;
  /** The parameter's documented example value, when it has one. */
  example?: unknown;
  /**
   * A query parameter declared with `allowEmptyValue: true`: `?name=` is a value the server must take. Without it
   * an empty value is not allowed by OpenAPI, and many servers read it as the parameter left out, so the tool
   * never counts on either reading (see plan/empty-values.ts).
   */
  allowEmptyValue?: true;
  /**
   * A parameter described by `content` instead of `schema`: its media type. A JSON one is sent as one JSON
   * text (e.g. `?filter={"where":{...}}`), its schema being that media type's.
   */
  contentType?: string;
  /**
   * A query array serialized as one value: `style: form, explode: false` joins its items with commas
   * (`?status=a,b`), spaceDelimited with spaces, pipeDelimited with pipes. Absent: one `name=item` pair per item.
   */
  joined?: ',' | ' ' | '|' | '\t';
}

/** A security scheme the tool can send credentials for. */
export type AuthScheme =
  | { name: string; kind: 'bearer' | 'basic' }
  | {
      name: string;
      kind: 'apiKey';
      in: 'header' | 'query' | 'cookie';
      parameter: string;
      /**
       * The word the value starts with, as the scheme's description or example shows it (`Token` in "Token
       * xxxxxx.yyyyyyy.zzzzzz"): the run's token is sent after it.
       */
      prefix?: string;
    };

/** An OpenAPI link of a response: the target operation and where its parameters come from. */
export interface OperationLink {
  name: string;
  /** Status of the response that declares the link. */
  status: string;
  operationId?: string;
  method?: string;
  path?: string;
  /** Target parameter name -> runtime expression, e.g. "$response.body#/id". */
  parameters: Record<string, string>;
}

export interface ResponseSpec {
  /** HTTP status as a string ("200", "4XX") or "default". */
  status: string;
  /** Declared media types; empty when the response declares no content (body undeclared). */
  contentTypes: string[];
  /** Schema of the JSON media type, when one is declared (dereferenced; may be a cyclic graph). */
  schema?: JsonSchema;
  /**
   * The same schema by reference into its description's validation document ("<document id>#<pointer>"),
   * what response validation compiles (recursive schemas stay finite). Absent for hand-built operations.
   */
  schemaRef?: string;
  pointer: string;
  /**
   * Each declared media type with its own schema, where they differ from the JSON one: set when a media type
   * other than JSON declares a schema (a text/plain string, a text/html page), so that a body is judged by the
   * media type it is answered in.
   */
  media?: Array<{ type: string; schema?: JsonSchema; schemaRef?: string; itemSchema?: JsonSchema }>;
  /** The headers the response declares (`required`, and the schema a present one's value must match). */
  headers?: Array<{ name: string; required: boolean; schema: JsonSchema; pointer: string; contentType?: string }>;
}

export interface RequestBodySpec {
  required: boolean;
  /** The range this media type stands for (`*\/*`, `text/*`): the contract declares the range, not this type. */
  range?: string;
  /** The contract says whether a body is required is not shown (`x-required: not shown` on the request body). */
  requiredNotShown?: true;
  contentType: string;
  schema: JsonSchema;
  pointer: string;
  /** The media type's own examples of the body (`example`, each of `examples`' values), where it gives any. */
  examples?: unknown[];
}

/** One operation of a loaded description, dereferenced and normalised to JSON Schema 2020-12. */
export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** Path template relative to the server base, e.g. "/orders/{id}". */
  path: string;
  /** Resource group: the first path segment with its slash ("/orders"), or the first tag. */
  group: string;
  /** Id of the service (server) the operation belongs to, e.g. "orders". */
  service: string;
  /** Description file the operation comes from (as given by the user). */
  specFile: string;
  /** JSON pointer of the operation object inside specFile, e.g. "/paths/~1orders/post". */
  pointer: string;
  parameters: ParameterSpec[];
  requestBody?: RequestBodySpec;
  /** Every media type the request body declares (JSON first); requestBody is the first of them. */
  requestBodies?: RequestBodySpec[];
  responses: ResponseSpec[];
  /** The security schemes whose credentials the tool sends (empty or absent: the profile's bearer header). */
  auth?: AuthScheme[];
  /** OpenAPI links of the responses. */
  links?: OperationLink[];
  /** True when a security requirement applies (the operation must reject calls without credentials). */
  secured: boolean;
  /**
   * True when the operation declares a security requirement with a scheme (required, or beside `{}` where a caller
   * may also come without credentials): it is sent credentials. False: it declares none (or only `{}`), and is
   * sent none unless its profile says credentials go with every operation (auth.everyOperation).
   */
  credentialed?: boolean;
  /** Vendor extensions of the operation object (x-*), kept verbatim. */
  extensions: Record<string, unknown>;
  /** The operation object's tags. */
  tags?: string[];
  /**
   * OAuth2 / OpenID Connect scopes a caller needs: one list per security requirement that names scopes (any one
   * list suffices). Absent: the contract names no scope for the operation.
   */
  scopes?: string[][];
  /**
   * `x-ownership: per-identity` on the operation or its path item: the records of the path belong to the identity
   * that created them (another identity may not read, change or delete them).
   */
  ownership?: 'per-identity';
}

export interface ServiceSpec {
  /** Stable id of the service: x-service-id, else the last path segment of the server URL. */
  id: string;
  file: string;
  title: string;
  version: string;
  openapi: string;
  /** Server URL template from the description, e.g. "https://{gateway}/orders". */
  serverTemplate: string;
  /** Named component schemas, dereferenced. */
  schemas: Record<string, JsonSchema>;
  /** The description as response validation reads it: refs kept, schemas in 2020-12 under its own version. */
  validationDocument?: { id: string; document: Record<string, unknown> };
  /** `x-platform` of the description's info (or root): the platform whose profile applies to it. */
  platform?: string;
  /** What loading the description noticed and let through (a component name OpenAPI's rule refuses), one line each. */
  warnings?: string[];
  /** What the description file declares and how it was read (`{ version: '2.0', readAs: 'OpenAPI 3.0' }`). */
  read?: { version: '2.0' | '3.0.x' | '3.1.x' | '3.2.x'; readAs: string; declared: string };
  /**
   * Where the description as read moved from the user's file (a Swagger 2.0 description's conversion): converted
   * prefix → the user's prefix (description/source-pointers.ts). Findings' locations are taken back by it.
   */
  pointerMoves?: Record<string, string>;
}

export interface Contract {
  services: ServiceSpec[];
  operations: Operation[];
}
