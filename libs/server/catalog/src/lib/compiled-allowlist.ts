import type { AllowlistMap } from '@arrbiter/contracts';
import { HttpMethod, routeShape } from '@arrbiter/shared/allowlist-rules';

/** An effective allowlist ready for the hot path: route shape → granted methods. */
export class CompiledAllowlist {
  private readonly grants = new Map<string, ReadonlySet<string>>();

  constructor(readonly effective: AllowlistMap) {
    for (const [path, methods] of Object.entries(effective)) {
      if (methods.length > 0) this.grants.set(routeShape(path), new Set(methods));
    }
  }

  allows(shape: string, method: HttpMethod): boolean {
    return this.grants.get(shape)?.has(method) ?? false;
  }

  /** The allowlist's paths (for resolving requests to routes the catalog does not know). */
  get paths(): string[] {
    return Object.keys(this.effective);
  }
}
