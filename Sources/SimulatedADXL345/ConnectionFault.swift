#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import I2C

/// A fault on a simulated chip's connection, as a driver would meet it on a Pi: the same for every
/// simulated chip, since the wiring fails the same way whatever is at the end of it.
public enum SimulatedFault: Sendable, Hashable {
    /// Healthy.
    case none
    /// Every transfer fails unacknowledged (`EREMOTEIO`): wrong address, or no power. The chip
    /// itself keeps sampling.
    case noAcknowledge
    /// Every transfer fails on the wire (`EIO`): a loose wire, no pull-ups. The chip keeps
    /// sampling.
    case busError
    /// The chip is absent from clock time `at` for `for` seconds (transfers NACK), then back
    /// power-cycled: registers at reset values, FIFO empty, standby.
    case unplugged(at: Double, for: Double)
    /// Unplugged again and again: from clock time `from`, present for `period − down`
    /// seconds, then absent for `down` (transfers NACK), then back power-cycled, repeating.
    /// `down` is above 0 and below `period`.
    case flapping(from: Double, period: Double, down: Double)
}

extension SimulatedADXL345 {
    /// The ADXL345 simulator's name for ``SimulatedFault``, which every simulator shares.
    public typealias Fault = SimulatedFault
}

/// A simulated chip's connection: the fault in force and how many of its unplug windows have
/// power-cycled the chip. Every simulator keeps one inside its lock and asks it, at each bus
/// transaction, whether the transfer fails and whether the chip lost power since the last look.
///
/// A value type with no clock of its own: the simulator passes its time in, so the fault sees the
/// same monotonic time as the chip's sample clock.
public struct ConnectionFaultState: Sendable {
    /// The fault in force.
    public private(set) var fault: SimulatedFault
    /// How many of the current fault's unplug windows have had their power cycle.
    private var unplugsHandled = 0

    /// A connection with `fault`; no unplug window has power-cycled the chip yet.
    public init(_ fault: SimulatedFault = .none) {
        self.fault = fault
    }

    /// Puts `fault` in force from now on; a new unplug window power-cycles the chip once more.
    public mutating func set(_ fault: SimulatedFault) {
        self.fault = fault
        unplugsHandled = 0
    }

    /// When the chip lost power, if it did at or before `time` and has not been power-cycled for
    /// it yet: the start of that unplug window, which is then counted as handled.
    ///
    /// The caller produces its samples up to the returned time, resets the chip as from power-on,
    /// then carries on to `time`. Doing the reset at the start of the window is indistinguishable
    /// from doing it at the end, since nothing can reach the chip in between; windows that passed
    /// with no access between them power-cycle it once, since nothing could tell.
    public mutating func takePowerCycle(at time: Double) -> Double? {
        guard let window = unplugWindow(at: time), window.index >= unplugsHandled else { return nil }
        unplugsHandled = window.index + 1
        return window.start
    }

    /// Whether the chip is absent from the bus at `time`.
    public func isUnplugged(at time: Double) -> Bool {
        guard let window = unplugWindow(at: time) else { return false }
        return time < window.start + window.duration
    }

    /// Why a transfer to `target` fails at `time`, if it does, for a chip answering at `address`:
    /// the code and errno a Pi's i2c-bcm2835 reports.
    public func failure(at time: Double, target: I2CAddress, address: I2CAddress) -> (code: I2CError.Code, errno: Int32)? {
        switch fault {
        case .busError:
            return (.busError, EIO)
        case .noAcknowledge:
            return (.noAcknowledge, EREMOTEIO)
        case .unplugged where isUnplugged(at: time), .flapping where isUnplugged(at: time):
            return (.noAcknowledge, EREMOTEIO)
        case .none, .unplugged, .flapping:
            return target == address ? nil : (.noAcknowledge, EREMOTEIO)
        }
    }

    /// Throws the ``I2CError`` the wiring gives a transfer to `target` at `time`, if it fails:
    /// `.busError` (`EIO`) under a bus fault, `.noAcknowledge` (`EREMOTEIO`) while NACKing or
    /// unplugged, or for any address but `address`.
    public func check(at time: Double, target: I2CAddress, address: I2CAddress, bus: String,
                      operation: String) throws(I2CError) {
        if let failure = failure(at: time, target: target, address: address) {
            throw I2CError(code: failure.code, bus: bus, address: target, errno: failure.errno, operation: operation)
        }
    }

    /// The latest unplug window begun by `time` (numbered from 0), or nil before the first.
    func unplugWindow(at time: Double) -> (index: Int, start: Double, duration: Double)? {
        switch fault {
        case let .unplugged(start, duration):
            return time >= start ? (0, start, duration) : nil
        case let .flapping(from, period, down):
            let first = from + period - down
            guard time >= first, period > 0 else { return nil }
            let index = Int(((time - first) / period).rounded(.down))
            return (index, first + Double(index) * period, down)
        case .none, .noAcknowledge, .busError:
            return nil
        }
    }
}
