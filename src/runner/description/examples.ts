import { fileURLToPath } from 'node:url';
import { readValidatedYaml } from './yaml-file.ts';

export interface SetupStep {
  as: string;
  operation: string;
  body?: unknown;
  query?: Record<string, unknown>;
}

export interface Expectation {
  pointer: string;
  equals?: unknown;
  /** The value must differ from this (semantic cases). */
  notEquals?: unknown;
}

export interface RequestExample {
  setup?: SetupStep[];
  body?: unknown;
  query?: Record<string, unknown>;
  pathParams?: Record<string, string>;
  expect?: Expectation[];
}

export interface OperationExamples extends RequestExample {
  note?: string;
  cases?: Array<RequestExample & { name: string; kind: 'positive' | 'negative' | 'semantic' }>;
}

export interface Examples {
  operations: Record<string, OperationExamples>;
}

export const EXAMPLES_SCHEMA = fileURLToPath(new URL('../../../contract/examples.schema.json', import.meta.url));

export function loadExamples(file: string): Promise<Examples> {
  return readValidatedYaml<Examples>(file, EXAMPLES_SCHEMA);
}
