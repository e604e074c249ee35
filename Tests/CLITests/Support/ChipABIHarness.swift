import BrokerHarness
import Foundation

/// The `ChipABIHarness` executable (Tests/ChipABIHarness): a chip's real driver on the real
/// `LinuxI2CBus`, step by step, run as a subprocess with the fake i2c-dev preloaded. `plumb`
/// drives only the ADXL345 so far; this is how the other drivers meet the kernel ABI.
enum ChipABIHarness {
    /// The driver the harness runs: `adxl345` (for the protocol's steps; `plumb` covers the
    /// rest), `adxl355`, or `mpu6050` for the whole MPU-6050 family.
    enum Driver: String, Sendable {
        case adxl345, adxl355, mpu6050
    }

    /// What one run printed: one JSON object per step, and how it ended.
    struct Outcome: Sendable, CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Each stdout line parsed as a JSON object, in step order.
        var steps: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// The object of the first step named `name`.
        func step(_ name: String) -> [String: Any]? {
            steps.first { $0["step"] as? String == name }
        }

        var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
    }

    static var binary: URL { PlumbProcess.productsDirectory.appendingPathComponent("ChipABIHarness") }

    /// Runs the harness on `fake`'s device at its address (or `address`), with `extra` variables
    /// added to the fake's (`PLUMB_FAKE_I2C_RDWR_READS`, say).
    static func run(_ driver: Driver, on fake: FakeI2CDev, address: UInt8? = nil, steps: [String],
                    also extra: [String: String] = [:], timeout: Double = 30) async throws -> Outcome {
        let chosen = address ?? fake.options.address ?? fake.options.chip.defaultAddress
        let command = [binary.path, driver.rawValue, fake.devicePath, "0x" + String(chosen, radix: 16)] + steps
        let environment = fake.variables.merging(extra) { $1 }
        let scaled = TestTimeScale.scaled(timeout)
        return try await offThePool {
            let outcome = try CommandRun.blocking(command, environment: environment, timeout: scaled)
            return Outcome(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
        }
    }
}
