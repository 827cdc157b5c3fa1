/**
 * The sandbox API server's public surface: what the tests, `thm sandbox`, `thm demo` and the
 * benchmarks use.
 */
export { startSandbox, type Sandbox, type SandboxOptions } from './server.js';
export { builtinScenario, demoDays, type BenchParams } from './builtin.js';
export {
  loadScenarioFile,
  parseScenario,
  PORTALS,
  FAULT_ENDPOINTS,
  type Fault,
  type FaultEndpoint,
  type Portal,
  type Scenario,
  type ParsedScenario,
} from './scenario.js';
export type { SandboxKey } from './keys.js';
