/**
 * Embedded reference service for the Customer domain service and the foreign-trade service: a real HTTP
 * server implementing the operations the seed describes, used as the default conformance target and as
 * the base for faulty variants. See README.md in this folder for the behaviour where the seed is silent.
 */
export { startReferenceService, MAX_BODY_BYTES, OTP_ROUTE, PACT_STATES_ROUTE } from './server.ts';
export { OPERATION_IDS, ROUTES, type OperationId, type RouteDef, type ServiceId } from './routes.ts';
export type {
  CreateShape,
  Handler,
  HandlerRequest,
  ReferenceService,
  ReferenceServiceOptions,
  Reply,
  Variant,
} from './types.ts';
