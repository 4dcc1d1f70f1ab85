// Both description files are valid OpenAPI 3.1.0 and carry the publication's title, version and servers
// (seed sections 1, 5 and 9).
import { describe, expect, test } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { arr, at, contractPath, CUSTOMER_FILE, FOREIGN_TRADE_FILE, obj, readYaml, type DescriptionFile } from './support.ts';

const expectations: Array<{ file: DescriptionFile; serviceId: string; serverUrl: string }> = [
  { file: CUSTOMER_FILE, serviceId: 'customer-service', serverUrl: 'https://{gateway}/customer-service' },
  {
    file: FOREIGN_TRADE_FILE,
    serviceId: 'foreign-trade-service',
    serverUrl: 'https://{gateway}/foreign-trade-service',
  },
];

describe.each(expectations)('$file', ({ file, serviceId, serverUrl }) => {
  test('passes swagger-parser validation (OpenAPI schema and $refs)', async () => {
    const api = obj(await SwaggerParser.validate(contractPath(file)), file);
    expect(api['openapi']).toBe('3.1.0');
  });

  test('is OpenAPI 3.1.0 with the JSON Schema 2020-12 dialect', () => {
    const doc = readYaml(file);
    expect(at(doc, 'openapi')).toBe('3.1.0');
    expect(at(doc, 'jsonSchemaDialect')).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  test('is titled "Customer" with the contract version label da1dea94286d', () => {
    const doc = readYaml(file);
    expect(at(doc, 'info', 'title')).toBe('Customer');
    expect(at(doc, 'info', 'version')).toBe('da1dea94286d');
  });

  test(`names its service ${serviceId}`, () => {
    expect(at(readYaml(file), 'x-service-id')).toBe(serviceId);
  });

  test(`has one server ${serverUrl} whose gateway host is a variable`, () => {
    const servers = arr(at(readYaml(file), 'servers'), 'servers');
    expect(servers).toHaveLength(1);
    const server = obj(servers[0], 'servers[0]');
    expect(server['url']).toBe(serverUrl);
    const gateway = obj(at(server, 'variables', 'gateway'), 'gateway variable');
    expect(typeof gateway['default']).toBe('string');
    expect(String(gateway['default'])).not.toBe('');
    // The gateway is granted per environment: no closed list of hosts.
    expect(gateway['enum']).toBeUndefined();
  });

  test('declares bearer authentication globally', () => {
    const doc = readYaml(file);
    expect(at(doc, 'components', 'securitySchemes', 'bearerAuth')).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(at(doc, 'security')).toEqual([{ bearerAuth: [] }]);
  });
});

test('swagger-parser rejects a description that breaks the rules (the validation is not a no-op)', async () => {
  const doc = obj(readYaml(CUSTOMER_FILE), CUSTOMER_FILE);
  const broken = { ...doc, info: { title: 'Customer' } };
  await expect(SwaggerParser.validate(broken as never)).rejects.toThrow(/version/);
});
