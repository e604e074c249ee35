import Accelerometers
import Contract
import Control
import FoundationEssentials
import Geometry
import Level
import PlumbSync

/// The control socket's answers: the service beside sampling and MQTT through which the command
/// line works while the agent owns the chip. It holds no agent state: each request asks
/// ``AgentCore`` (readings, calibration, self-test) or ``SamplingService`` (the probe, a job
/// between two blocks), so the socket and MQTT reach the same decisions.
final class ControlService: ControlHandler {
    let core: AgentCore
    let sampling: SamplingService
    let owner: ChipOwner
    /// Per connection that asked for a calibration step: its event listener.
    private let listeners = Locked<[Int: Int]>([:])
    /// The connections with a `watch` stream: one each, so a client cannot multiply them.
    private let streams = Locked<Set<Int>>([])
    /// The last probe and when (monotonic seconds): a probe is a job on the chip, which pauses
    /// sampling, so a client asking again and again gets the same answer for a while.
    private let lastProbe = Locked<(time: Double, reply: JSONValue)?>(nil)
    /// When the last self-test through the socket ended: the next waits ``jobSpacing``.
    private let lastSelfTest = Locked<Double?>(nil)
    private let clock: @Sendable () -> Double

    /// Seconds a probe's answer is reused, and between two self-tests asked on the socket.
    static let jobSpacing = 10.0


    init(core: AgentCore, sampling: SamplingService, owner: ChipOwner, clock: @escaping @Sendable () -> Double) {
        self.clock = clock
        self.core = core
        self.sampling = sampling
        self.owner = owner
    }

    /// The longest a probe waits for its turn on the chip and its result.
    static let probeTimeout = 5.0

    func handle(_ request: ControlRequest, on connection: ControlConnection) async {
        switch request {
        case .hello:
            connection.send(ControlReply.message(ControlReply.hello, [
                "protocol": .integer(ControlProtocol.version), "owner": owner.json,
            ]))
        case .read:
            connection.send(await readingReply())
        case .watch(let interval):
            guard streams.withLock({ $0.insert(connection.id).inserted }) else {
                connection.send(ControlFailure(.inProgress, "this connection already has a watch stream; open another"
                    + " connection for a second one.").json)
                return
            }
            // Its own task: the next request waits for nothing, the stream goes on beside it.
            Task {
                await self.stream(every: interval, to: connection)
                self.streams.withLock { _ = $0.remove(connection.id) }
            }
        case .vibration:
            if let window = await core.controlVibrationWindow() {
                connection.send(ControlReply.message(ControlReply.vibration, ["vibration": window.payload,
                                                                               "window": .integer(window.window)]))
            } else {
                connection.send(await core.controlVibrationAbsence().json)
            }
        case .probe:
            let now = clock()
            if let last = lastProbe.withLock({ $0 }), now - last.time < Self.jobSpacing {
                connection.send(last.reply)
            } else {
                let reply = await probe()
                lastProbe.withLock { $0 = (clock(), reply) }
                connection.send(reply)
            }
        case .selftest:
            if let last = lastSelfTest.withLock({ $0 }), clock() - last < Self.jobSpacing {
                connection.send(ControlFailure(.inProgress, "a self-test ran \(Int(clock() - last)) s ago; the socket"
                    + " runs one every \(Int(Self.jobSpacing)) s at most (each pauses sampling). Ask again in a moment.").json)
                return
            }
            let reply = await selfTest()
            lastSelfTest.withLock { $0 = clock() }
            connection.send(reply)
        case .sixPoint(let action):
            await follow(connection)
            await core.calibrate(sixPoint: action, from: .controlSocket(client: connection.id))
        case .reversal(let step):
            await follow(connection)
            await core.calibrate(reversal: step, from: .controlSocket(client: connection.id))
        }
    }

    func closed(_ connection: ControlConnection) async {
        if let listener = listeners.withLock({ $0.removeValue(forKey: connection.id) }) {
            await core.removeEventListener(listener)
        }
        await core.calibrationOriginGone(.controlSocket(client: connection.id))
    }

    private func readingReply() async -> JSONValue {
        switch await core.controlReading() {
        case .success(let reading): ControlReply.message(ControlReply.reading, ["reading": reading.json])
        case .failure(let failure): failure.json
        }
    }

    /// Seconds a `watch` waits through having no reading (a start, a self-test) before it ends
    /// with the reason: a sensor fault must not leave a command waiting without end.
    static let readingPatience = 6.0

    /// `watch`: each new reading, at most one per `interval`, until the client goes, or the
    /// agent has had no reading for ``readingPatience`` seconds (the error ends the stream).
    private func stream(every interval: Double, to connection: ControlConnection) async {
        var last: Double?
        var missing = 0.0
        while connection.isOpen {
            switch await core.controlReading() {
            case .success(let reading):
                missing = 0
                if reading.measurement.time != last {
                    last = reading.measurement.time
                    connection.send(ControlReply.message(ControlReply.reading, ["reading": reading.json]))
                }
            case .failure(let failure):
                missing += interval
                if missing >= Self.readingPatience {
                    connection.send(failure.json)
                    return
                }
            }
            try? await Task.sleep(for: .seconds(interval))
        }
    }

    /// `probe`: the chip's identity and bus, read between two blocks (reads only), with what the
    /// agent's sampler sees of the batching.
    private func probe() async -> JSONValue {
        let result = await sampling.runOnChip(timeout: Self.probeTimeout) { (chip) throws(SensorError) -> ChipProbeReport in
            try ChipProbeReport(chip: chip)
        }
        switch result {
        case .success(let report):
            guard let data = try? JSONEncoder().encode(report),
                  let value = try? JSONDecoder().decode(JSONValue.self, from: data) else {
                return ControlFailure(.chip, "the probe's figures could not be encoded.").json
            }
            return ControlReply.message(ControlReply.probe, ["probe": value, "sampling": await core.controlSamplingFigures()])
        case .failure(let error):
            return ControlFailure(.chip, error.description).json
        }
    }

    /// `selftest`: the agent's self-test (the same as `P/command/selftest`), waited for.
    private func selfTest() async -> JSONValue {
        let outcome = Locked<CheckedContinuation<[String: JSONValue], Never>?>(nil)
        let listener = await core.addEventListener { event in
            guard event.type == .selftest else { return }
            outcome.withLock { pending -> CheckedContinuation<[String: JSONValue], Never>? in
                defer { pending = nil }
                return pending
            }?.resume(returning: event.details)
        }
        let details = await withCheckedContinuation { continuation in
            outcome.withLock { $0 = continuation }
            Task { await core.selfTest() }
        }
        await core.removeEventListener(listener)
        if case .string(let error)? = details[.error] { return ControlFailure(.inProgress, error).json }
        return ControlReply.message(ControlReply.selftest, ["selftest": .object(details)])
    }

    /// Forwards `connection`'s calibration events to it from now until it closes: those that
    /// concern it (``AgentEvent/origins``: it asked, or its run), not another client's refusal.
    /// Awaited before the first step, so the step's own events reach it.
    private func follow(_ connection: ControlConnection) async {
        guard listeners.withLock({ $0[connection.id] == nil }) else { return }
        let origin = CalibrationOrigin.controlSocket(client: connection.id)
        let id = await core.addEventListener { event in
            guard EventType.calibrationEvents.contains(event.type), event.origins.contains(origin) else { return }
            connection.send(ControlReply.message(ControlReply.event, ["event": .object(event.wireObject)]))
        }
        listeners.withLock { $0[connection.id] = id }
        // Gone meanwhile: closed() found nothing to remove.
        if !connection.isOpen, let id = listeners.withLock({ $0.removeValue(forKey: connection.id) }) {
            await core.removeEventListener(id)
        }
    }
}
