// Component schemas against the seed's records (section 2): exact, case-sensitive field names; the seed's
// type mapping; nullable fields allow null and are optional, non-nullable ones are required; fields whose
// type is not shown accept anything. Then sample bodies through Ajv (JSON Schema 2020-12 with formats).
import { describe, expect, test } from 'vitest';
import {
  at,
  componentValidator,
  CUSTOMER_FILE,
  DESCRIPTION_FILES,
  FOREIGN_TRADE_FILE,
  obj,
  readYaml,
  type DescriptionFile,
  type Obj,
} from './support.ts';

type SeedType = 'Guid' | 'string' | 'long' | 'int' | 'DateTime' | 'bool' | 'collection of string';

/** The seed's type mapping (written by hand): the JSON Schema each seed type stands for. */
const mapping: Record<SeedType, Obj> = {
  Guid: { type: 'string', format: 'uuid' },
  string: { type: 'string' },
  long: { type: 'integer', format: 'int64' },
  int: { type: 'integer', format: 'int32' },
  DateTime: { type: 'string', format: 'date-time' },
  bool: { type: 'boolean' },
  'collection of string': { type: 'array', items: { type: 'string' } },
};

function expectedSchema(type: SeedType, nullable: boolean): Obj {
  const base = mapping[type];
  return nullable ? { ...base, type: [base['type'], 'null'] } : base;
}

// Seed 2.5 - 2.11: records with a Nullable column, copied by hand.
const typedRecords: Array<{ file: DescriptionFile; name: string; fields: Array<[string, SeedType, boolean]> }> = [
  {
    file: CUSTOMER_FILE,
    name: 'UserDto',
    fields: [
      ['Id', 'Guid', false],
      ['Username', 'string', false],
      ['OrganizationId', 'Guid', true],
      ['OrganizationCode', 'string', false],
      ['FullName', 'string', false],
      ['FirstName', 'string', false],
      ['LastName', 'string', false],
      ['PreferredUsername', 'string', false],
      ['IsServiceUser', 'bool', true],
      ['CustomerId', 'Guid', true],
      ['Theme', 'string', false],
      ['AuthTime', 'long', true],
      ['Locale', 'string', false],
      ['GroupMemberships', 'collection of string', false],
    ],
  },
  {
    file: CUSTOMER_FILE,
    name: 'ExchangeUserTokenDto',
    fields: [
      ['AccessToken', 'string', false],
      ['ExpiresIn', 'int', false],
      ['RefreshToken', 'string', false],
      ['RefreshExpiresIn', 'int', false],
    ],
  },
  { file: CUSTOMER_FILE, name: 'GeneratePasswordResponse', fields: [['Password', 'string', false]] },
  {
    file: CUSTOMER_FILE,
    name: 'SendotpForgetPasswordResponse',
    fields: [
      ['Username', 'string', false],
      ['EndDate', 'DateTime', true],
      ['TransactionId', 'Guid', false],
    ],
  },
  {
    file: FOREIGN_TRADE_FILE,
    name: 'ReferenceNumberDto',
    fields: [
      ['Id', 'Guid', false],
      ['Description', 'string', false],
      ['Counter', 'int', false],
      ['LastReference', 'string', false],
      ['Direction', 'string', false],
    ],
  },
  { file: FOREIGN_TRADE_FILE, name: 'ValidateReferenceNumberResultDto', fields: [['IsValid', 'bool', false]] },
];

// Seed 2.3, 2.4, 2.9 and the translation's `name`: field names shown, types not shown.
const untypedFields: Array<{ name: string; fields: string[] }> = [
  { name: 'CacheKeyRecord', fields: ['key', 'mode', 'isSharedBetweenApplications', 'isSharedBetweenTenants'] },
  { name: 'CacheRefreshResult', fields: ['isSuccess', 'key'] },
  { name: 'UserCreationResult', fields: ['identityProviderUserId', 'userPassword'] },
];

function schemaOf(file: DescriptionFile, name: string): Obj {
  return obj(at(readYaml(file), 'components', 'schemas', name), `${file} ${name}`);
}

function requiredOf(schema: Obj): string[] {
  const required = schema['required'];
  return Array.isArray(required) ? required.map(String).sort() : [];
}

/** Keys of a schema that constrain values: none means "any value" (an unknown type). */
function constraints(schema: Obj): string[] {
  // Annotations are no constraints: `x-type: not shown` says a type is unknown, it sets none.
  return Object.keys(schema).filter((key) => !['description', 'title', '$comment', 'examples'].includes(key) && !key.startsWith('x-'));
}

describe.each(typedRecords)('$name (seed types and nullability)', ({ file, name, fields }) => {
  test('has exactly the seed\'s field names, case as written', () => {
    const properties = obj(schemaOf(file, name)['properties'], 'properties');
    expect(Object.keys(properties).sort()).toEqual(fields.map(([field]) => field).sort());
  });

  test.each(fields)('%s is %s, nullable %s', (field, type, nullable) => {
    const property = obj(at(schemaOf(file, name), 'properties', field), field);
    expect(property).toEqual(expectedSchema(type, nullable));
  });

  test('non-nullable fields are required, nullable ones are not', () => {
    expect(requiredOf(schemaOf(file, name))).toEqual(
      fields.filter(([, , nullable]) => !nullable).map(([field]) => field).sort(),
    );
  });

  test('is an object that allows extra properties', () => {
    const schema = schemaOf(file, name);
    expect(schema['type']).toBe('object');
    expect(schema['additionalProperties']).toBeUndefined();
  });
});

describe.each(untypedFields)('$name (types not shown)', ({ name, fields }) => {
  test('has the seed\'s fields, each accepting any value, none required', () => {
    const schema = schemaOf(CUSTOMER_FILE, name);
    const properties = obj(schema['properties'], 'properties');
    expect(Object.keys(properties).sort()).toEqual([...fields].sort());
    for (const field of fields) expect(constraints(obj(properties[field], field)), field).toEqual([]);
    expect(requiredOf(schema)).toEqual([]);
  });
});

describe('address type records (seed 2.1, 2.2: no nullability given)', () => {
  test('AddressType: fields as given, only id required', () => {
    const schema = schemaOf(CUSTOMER_FILE, 'AddressType');
    expect(schema['properties']).toEqual({
      id: { type: 'string', format: 'uuid' },
      code: { type: 'string' },
      name: { type: 'string' },
      country: { type: 'integer', format: 'int32' },
      isActive: { type: 'boolean' },
    });
    expect(requiredOf(schema)).toEqual(['id']);
  });

  test('AddressTypeField: fields as given (camelCase), none required, no translations', () => {
    const schema = schemaOf(CUSTOMER_FILE, 'AddressTypeField');
    const properties = obj(schema['properties'], 'properties');
    expect(Object.keys(properties).sort()).toEqual(
      ['id', 'typeId', 'fieldKey', 'isMandatory', 'isVisible', 'isActive', 'separatorMark', 'sequenceNumber'].sort(),
    );
    expect(properties['typeId']).toMatchObject({ type: 'string', format: 'uuid' });
    expect(properties['sequenceNumber']).toEqual({ type: 'integer', format: 'int32' });
    expect(requiredOf(schema)).toEqual([]);
  });

  test('Translation: languageCode is a string, name is unresolved (any value)', () => {
    const schema = schemaOf(CUSTOMER_FILE, 'Translation');
    expect(at(schema, 'properties', 'languageCode')).toEqual({ type: 'string' });
    expect(constraints(obj(at(schema, 'properties', 'name'), 'name'))).toEqual([]);
  });
});

test('no schema anywhere forbids additional properties (the seed allows extra properties)', () => {
  for (const file of DESCRIPTION_FILES) {
    const found: string[] = [];
    const walk = (node: unknown, pointer: string): void => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'additionalProperties' || key === 'unevaluatedProperties') found.push(`${pointer}/${key}`);
        walk(value, `${pointer}/${key}`);
      }
    };
    walk(readYaml(file), '');
    expect(found, file).toEqual([]);
  }
});

describe('sample bodies (Ajv, JSON Schema 2020-12, formats checked)', () => {
  const valid = componentValidator();
  const C = CUSTOMER_FILE;
  const F = FOREIGN_TRADE_FILE;
  const id = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
  const id2 = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

  describe('three-shape rule of the address create operations (CreatedRecordResult)', () => {
    test.each<[string, unknown]>([
      ['a single record', { id }],
      ['a bare array of records', [{ id }, { id: id2 }]],
      ['a page with total and data', { total: 2, data: [{ id }, { id: id2 }] }],
      ['a page without total', { data: [{ id }] }],
      ['a record with extra properties', { id, code: 'HOME', name: 'Home', unexpected: { nested: true } }],
    ])('accepts %s', (_name, body) => {
      expect(valid(C, 'CreatedRecordResult', body)).toBe(true);
    });

    test.each<[string, unknown]>([
      ['a page without data', { total: 2 }],
      ['a record without id', { code: 'HOME' }],
      ['a record whose id is not a uuid', { id: 'not-a-uuid' }],
      ['an array with a record without id', [{ id }, { name: 'x' }]],
      ['a page whose total is not an integer', { total: 1.5, data: [{ id }] }],
      ['a page whose data holds a record without id', { total: 1, data: [{}] }],
      ['a bare string', 'created'],
    ])('rejects %s', (_name, body) => {
      expect(valid(C, 'CreatedRecordResult', body)).toBe(false);
    });
  });

  describe('three-shape rule without an id (cache refresh, user creation)', () => {
    test.each<[string, string, unknown]>([
      ['CacheRefreshResultCreated', 'a single record', { isSuccess: true, key: 'k' }],
      ['CacheRefreshResultCreated', 'a bare array', [{ isSuccess: true, key: 'k' }]],
      ['CacheRefreshResultCreated', 'a page', { total: 1, data: [{ isSuccess: 'yes', key: 7 }] }],
      ['UserCreationResultCreated', 'a single record', { identityProviderUserId: 'u-1', userPassword: null }],
      ['UserCreationResultCreated', 'a page', { data: [{ identityProviderUserId: 'u-1' }] }],
    ])('%s accepts %s (field types not shown: any value)', (schema, _name, body) => {
      expect(valid(C, schema, body)).toBe(true);
    });

    test('a page without data is still a valid record there: with nothing required, the shapes overlap', () => {
      expect(valid(C, 'CacheRefreshResultCreated', { total: 1 })).toBe(true);
    });

    test('a page whose data is not an array and a scalar body are rejected', () => {
      expect(valid(C, 'UserCreationResultCreated', 'ok')).toBe(false);
      expect(valid(C, 'CacheRefreshResultCreated', [1])).toBe(false);
    });
  });

  describe('SendotpForgetPasswordResponse', () => {
    const ok = { Username: 'jdoe', EndDate: '2025-01-31T10:00:00Z', TransactionId: id };
    test.each<[string, boolean, unknown]>([
      ['a full record', true, ok],
      ['EndDate null', true, { ...ok, EndDate: null }],
      ['EndDate absent', true, { Username: 'jdoe', TransactionId: id }],
      ['extra properties', true, { ...ok, Extra: 1 }],
      ['a record without TransactionId', false, { Username: 'jdoe', EndDate: null }],
      ['TransactionId null', false, { ...ok, TransactionId: null }],
      ['TransactionId not a uuid', false, { ...ok, TransactionId: '42' }],
      ['EndDate not a date-time', false, { ...ok, EndDate: 'tomorrow' }],
      ['Username null', false, { ...ok, Username: null }],
      ['camelCase transactionId instead of TransactionId', false, { Username: 'jdoe', transactionId: id }],
    ])('%s: valid %s', (_name, expected, body) => {
      expect(valid(C, 'SendotpForgetPasswordResponse', body)).toBe(expected);
    });
  });

  describe('UserDto', () => {
    const user = {
      Id: id,
      Username: 'jdoe',
      OrganizationId: null,
      OrganizationCode: 'ORG',
      FullName: 'J Doe',
      FirstName: 'J',
      LastName: 'Doe',
      PreferredUsername: 'jdoe',
      IsServiceUser: null,
      CustomerId: null,
      Theme: 'light',
      AuthTime: null,
      Locale: 'en',
      GroupMemberships: ['admins'],
    };
    test('accepts a record with nullable fields null, and with them set', () => {
      expect(valid(C, 'UserDto', user)).toBe(true);
      expect(
        valid(C, 'UserDto', { ...user, OrganizationId: id2, IsServiceUser: false, CustomerId: id2, AuthTime: 1735689600 }),
      ).toBe(true);
    });
    test('rejects `id` in place of `Id` (names are case-sensitive)', () => {
      const { Id: _omitted, ...rest } = user;
      expect(valid(C, 'UserDto', { ...rest, id })).toBe(false);
    });
    test('rejects null in a non-nullable field and a non-string group membership', () => {
      expect(valid(C, 'UserDto', { ...user, Theme: null })).toBe(false);
      expect(valid(C, 'UserDto', { ...user, GroupMemberships: [1] })).toBe(false);
    });
  });

  describe('ReferenceNumberDto and ValidateReferenceNumberResultDto', () => {
    const reference = { Id: id, Description: 'd', Counter: 12, LastReference: 'FT-12', Direction: 'OUT' };
    test('accept the seed\'s records', () => {
      expect(valid(F, 'ReferenceNumberDto', reference)).toBe(true);
      expect(valid(F, 'ValidateReferenceNumberResultDto', { IsValid: false })).toBe(true);
    });
    test('reject a missing field, a Counter beyond int32 and a null IsValid', () => {
      const { Direction: _omitted, ...withoutDirection } = reference;
      expect(valid(F, 'ReferenceNumberDto', withoutDirection)).toBe(false);
      expect(valid(F, 'ReferenceNumberDto', { ...reference, Counter: 2 ** 31 })).toBe(false);
      expect(valid(F, 'ValidateReferenceNumberResultDto', { IsValid: null })).toBe(false);
    });
  });

  describe('error bodies', () => {
    test('the envelope accepts extra fields and needs error.code', () => {
      expect(valid(C, 'ErrorEnvelope', { error: { code: 'ERR_PLAT_33', message: 'timeout' }, traceId: 't' })).toBe(true);
      expect(valid(C, 'ErrorEnvelope', { error: {} })).toBe(false);
      expect(valid(C, 'ErrorEnvelope', { message: 'no envelope' })).toBe(false);
    });
    test('a 400 body may lack the envelope', () => {
      expect(valid(C, 'BadRequestBody', { message: 'no envelope' })).toBe(true);
      expect(valid(C, 'BadRequestBody', 'plain text')).toBe(true);
    });
  });

  describe('address type records and requests', () => {
    test('a listed field with translations (name of any type) is valid; a numeric languageCode is not', () => {
      const field = { id, typeId: id2, fieldKey: 'street', isMandatory: true, sequenceNumber: 1 };
      expect(valid(C, 'AddressTypeFieldWithTranslations', { ...field, translations: [{ languageCode: 'en', name: { text: 'Street' } }] })).toBe(true);
      expect(valid(C, 'AddressTypeFieldWithTranslations', { ...field, translations: [{ languageCode: 1, name: 'x' }] })).toBe(false);
      expect(valid(C, 'AddressTypeField', { ...field, sequenceNumber: 'first' })).toBe(false);
    });
    test('create and update requests need exactly the seed\'s required fields', () => {
      expect(valid(C, 'AddressTypeCreateRequest', { code: 'HOME', name: 'Home' })).toBe(true);
      expect(valid(C, 'AddressTypeCreateRequest', { code: 'HOME', name: 'Home', country: 90, other: 1 })).toBe(true);
      expect(valid(C, 'AddressTypeCreateRequest', { name: 'Home' })).toBe(false);
      expect(valid(C, 'AddressTypeCreateRequest', { code: 'HOME', name: 'Home', country: '90' })).toBe(false);
      expect(valid(C, 'AddressTypeUpdateRequest', { isActive: true, name: 'Home' })).toBe(true);
      expect(valid(C, 'AddressTypeUpdateRequest', { name: 'Home' })).toBe(false);
      expect(valid(C, 'AddressTypeFieldUpdateRequest', { fieldKey: 'k', isMandatory: true, sequenceNumber: 1 })).toBe(false);
    });
  });
});
