/**
 * The data that flows between the stages of the engine. Everything here is plain JSON-serialisable data:
 * operations come out of spec/, cases out of plan/, exchanges out of http/, findings out of checks/, and the
 * run results (results.json) are what every reporter renders from. By topic: model/contract.ts, model/exchange.ts,
 * model/findings.ts, model/results.ts.
 */
export * from './model/contract.ts';
export * from './model/exchange.ts';
export * from './model/findings.ts';
export * from './model/results.ts';
export * from './model/identity.ts';
