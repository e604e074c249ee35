import Foundation

/// How much longer the harness's waits may take than they were written for.
///
/// Under a sanitizer every instrumented process (the test runner and each `plumb` it starts) runs
/// 2–15 times slower, and a wait written for the plain build times out on an agent that is merely
/// slow. `scripts/test-sanitized.sh` sets `PLUMB_TEST_TIME_SCALE` (a factor ≥ 1); unset, the factor
/// is 1 and every wait is exactly as written. Only time-outs scale, never what a test asserts
/// about the product's own timing.
public enum TestTimeScale {
    /// The environment variable read once per test process.
    public static let environmentVariable = "PLUMB_TEST_TIME_SCALE"

    /// The factor: `PLUMB_TEST_TIME_SCALE` if it is a number of at least 1, else 1.
    public static let factor: Double = {
        guard let text = ProcessInfo.processInfo.environment[environmentVariable],
              let value = Double(text), value >= 1 else { return 1 }
        return value
    }()

    /// `seconds` stretched by ``factor``.
    public static func scaled(_ seconds: Double) -> Double { seconds * factor }

    /// `duration` stretched by ``factor``.
    public static func scaled(_ duration: Duration) -> Duration { duration * factor }
}
