// Stand-in for @roo-code/telemetry: Roo's TelemetryService singleton with no clients.
export class TelemetryService {
  private static _instance: TelemetryService | null = null
  static createInstance(_clients: unknown[] = []) {
    TelemetryService._instance = new TelemetryService()
    return TelemetryService._instance
  }
  static hasInstance() {
    return TelemetryService._instance !== null
  }
  static get instance(): any {
    if (!TelemetryService._instance) throw new Error('TelemetryService not initialized')
    return TelemetryService._instance
  }
  captureContextCondensed(..._args: unknown[]) {}
  captureSlidingWindowTruncation(..._args: unknown[]) {}
  captureEvent(..._args: unknown[]) {}
}
