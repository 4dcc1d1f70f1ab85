/** The part of swagger2openapi (no types of its own) the loader uses. */
declare module 'swagger2openapi' {
  const swagger2openapi: {
    convertObj(swagger: object, options: { patch?: boolean; warnOnly?: boolean; resolve?: boolean }): Promise<{ openapi: Record<string, unknown> }>;
  };
  export default swagger2openapi;
}
