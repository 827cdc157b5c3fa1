import { faultSchema, type Fault, type FaultEndpoint, type ParsedFault } from './scenario.js';

/**
 * Faults waiting to be applied. A request takes the first queued fault that matches its
 * network and endpoint, and uses up one of its `times`; faults that match nothing wait.
 */
export class FaultQueue {
  #faults: ParsedFault[] = [];

  add(faults: Fault | Fault[]): void {
    for (const fault of Array.isArray(faults) ? faults : [faults]) {
      this.#faults.push(faultSchema.parse(fault));
    }
  }

  clear(): void {
    this.#faults = [];
  }

  get size(): number {
    return this.#faults.length;
  }

  take(network: string, endpoint: FaultEndpoint): ParsedFault | undefined {
    const index = this.#faults.findIndex(
      (fault) =>
        (fault.network === undefined || fault.network === network) &&
        (fault.endpoint === undefined || fault.endpoint === '*' || fault.endpoint === endpoint),
    );
    if (index < 0) return undefined;
    const fault = this.#faults[index]!;
    fault.times -= 1;
    if (fault.times <= 0) this.#faults.splice(index, 1);
    return fault;
  }
}
