import Accelerometers
import I2C
import SimulatedADXL345
import SimulatedChips

extension SimulationOptions {
    /// The description of the chip `--sim-chip` chose, whose driver reads the simulator.
    var chip: ChipDescription { kind.chipDescription }

    /// Builds the chip `--sim-chip` chose at `address` (its default is `chip.addresses[0]`), every
    /// `--sim-*` flag applied, sampling in real time on the monotonic clock: a script, a machine
    /// schedule and an unplug start now.
    func makeChip(address: I2CAddress) -> any I2CBus {
        makeChip(address: address, clock: MonotonicSimulationClock())
    }

    /// ``makeChip(address:)`` on `clock`, for tests that run the simulated time by hand.
    func makeChip(address: I2CAddress, clock: any SimulationClock) -> any I2CBus {
        kind.make(request(address: address, now: clock.now()), clock: clock)
    }

    /// What the flags ask of the part, its times from `now`.
    func request(address: I2CAddress, now: Double) -> SimulatedPartRequest {
        let faults = faults(now: now)
        let crossAxis: SimulatedPartRequest.CrossAxis? = switch self.crossAxis {
        case .matrix(let matrix): .matrix(matrix)
        case .random(let bound): .random(bound: bound)
        case nil: nil
        }
        return SimulatedPartRequest(address: address, scene: scene(now: now), vibration: machineVibration(now: now),
                                    gain: gainError, nonlinearity: nonlinearity, crossAxis: crossAxis, seed: seed,
                                    chipSeed: chipSeed, noiseLSB: noiseLSB, offsetMilligravities: offsetMilligravities,
                                    fault: faults.connection, stuck: faults.stuck,
                                    temperature: temperature?.profile(now: now))
    }

    /// The connection fault `--sim-fault` asks for, its times from `now`, and whether it is the
    /// stuck proof mass instead (a fault of the part, not of its wiring).
    private func faults(now: Double) -> (connection: SimulatedFault, stuck: Bool) {
        guard let fault, let parsed = try? Self.parseFault(fault) else { return (.none, false) }
        return switch parsed {
        case .stuck: (.none, true)
        case .connection(let fault): (fault, false)
        case .unplug(let after, let duration): (.unplugged(at: now + after, for: duration), false)
        case .flap(let period, let down): (.flapping(from: now, period: period, down: down), false)
        }
    }
}
