import Geometry

/// When the machine runs: ``on`` seconds running, then ``off`` seconds stopped, repeating from
/// ``start`` seconds of the simulation clock, so that running detection can be tested against
/// exact edges.
///
/// Running during `[start + k·period, start + k·period + on)` for k = 0, 1, 2, …, stopped
/// otherwise, before ``start`` included. The edges are computed the one way everywhere (see
/// ``edge(cycle:starts:)``), so ``isRunning(at:)`` agrees with ``nextEdge(after:)`` to the last
/// bit: the machine runs at its start edge and is stopped at its stop edge.
///
/// The edges are abrupt: full vibration from the start edge, none from the stop edge, as if the
/// machine spun up and down in no time. A real run-up takes seconds; a test then knows exactly
/// what a detector should have seen.
public struct MachineSchedule: Sendable, Hashable {
    /// Seconds running in each cycle, above 0.
    public let on: Double
    /// Seconds stopped in each cycle, above 0.
    public let off: Double
    /// Simulation-clock time of the first start edge, seconds.
    public let start: Double

    /// A schedule; nil unless `on` and `off` are finite and above 0 and `start` is finite.
    public init?(on: Double, off: Double, start: Double = 0) {
        guard on.isFinite, on > 0, off.isFinite, off > 0, start.isFinite, (on + off).isFinite else { return nil }
        self.on = on
        self.off = off
        self.start = start
    }

    /// One cycle, `on + off` seconds.
    public var period: Double { on + off }

    /// A moment the machine starts or stops.
    public struct Edge: Sendable, Hashable {
        /// Simulation-clock time, seconds.
        public var time: Double
        /// true when the machine starts running at ``time``, false when it stops.
        public var starts: Bool

        public init(time: Double, starts: Bool) {
            self.time = time
            self.starts = starts
        }
    }

    /// The start edge (`starts`) or stop edge of cycle `cycle` (0 is the first): `start +
    /// cycle·period`, plus ``on`` for the stop. The one formula every other answer uses.
    public func edge(cycle: Int, starts: Bool) -> Edge {
        Edge(time: time(ofCycle: Double(cycle), starts: starts), starts: starts)
    }

    /// Whether the machine runs at `time`: within ``on`` seconds of a cycle's start edge, that
    /// edge included. Never before ``start``, nor at a non-finite time.
    public func isRunning(at time: Double) -> Bool {
        guard let cycle = self.cycle(containing: time) else { return false }
        return time < self.time(ofCycle: cycle, starts: false)
    }

    /// The first edge strictly after `time`: the first start edge for a time before ``start``.
    /// nil for a non-finite time.
    public func nextEdge(after time: Double) -> Edge? {
        guard time.isFinite else { return nil }
        guard let cycle = self.cycle(containing: time) else { return edge(cycle: 0, starts: true) }
        let stop = self.time(ofCycle: cycle, starts: false)
        return time < stop
            ? Edge(time: stop, starts: false) : Edge(time: self.time(ofCycle: cycle + 1, starts: true), starts: true)
    }

    /// Every edge in `from..<to`, in order.
    public func edges(from: Double, to: Double) -> [Edge] {
        guard from.isFinite, to.isFinite, from < to else { return [] }
        var edges: [Edge] = []
        // An edge exactly at `from` belongs to the range, and nextEdge(after:) is strictly after.
        var cursor = from.nextDown
        while let next = nextEdge(after: cursor), next.time < to {
            edges.append(next)
            cursor = next.time
        }
        return edges
    }

    private func time(ofCycle cycle: Double, starts: Bool) -> Double {
        let begins = start + cycle * period
        return starts ? begins : begins + on
    }

    /// The cycle whose start edge is the last at or before `time`; nil before the first.
    private func cycle(containing time: Double) -> Double? {
        guard time.isFinite, time >= start else { return nil }
        // The division can round across an edge either way; the edges themselves decide.
        var cycle = ((time - start) / period).rounded(.down)
        if self.time(ofCycle: cycle, starts: true) > time { cycle -= 1 }
        if self.time(ofCycle: cycle + 1, starts: true) <= time { cycle += 1 }
        return cycle
    }
}

/// The vibration of the machine the chip is mounted on, added to the scene's specific force
/// before the chip's output path: tones, broadband noise, and when the machine runs.
///
/// It rides on every ``SimulatedScene`` (still, sweep, script, …) and stays when the scene
/// changes; set it in ``SimulatedADXL345/Configuration/vibration`` or at run time with
/// ``SimulatedADXL345/setVibration(_:)``. It is the machine's, not the chip's: the chip's own
/// noise (``SimulatedADXL345/Configuration/noiseXY``) comes on top, and its gain, cross-axis,
/// clipping and quantization apply to the vibration as to gravity.
///
/// **Sampling.** The chip point-samples: each sample holds the scene plus the vibration at that
/// sample's own instant. The ADXL345 filters digitally to an output bandwidth of ODR/2, but the
/// datasheet gives no response for that filter, so none is modelled: a tone below ODR/2 reads at
/// full amplitude (a real part may roll off towards ODR/2), and a tone above it aliases at full
/// amplitude to its distance from the nearest multiple of the ODR (a real part attenuates it by
/// an amount the datasheet does not give). As with the real chip, choose an ODR above twice the
/// highest tone.
///
/// **Tones** are sines with a phase each, drawn from the configuration's noise seed
/// (``phases(seed:)``), so the same seed repeats a run. The phase runs on through the OFF parts
/// (the machine is silenced, not restarted).
///
/// **Broadband noise** is Gaussian, white from sample to sample, ``noise`` g RMS per axis in
/// every sample whatever the ODR (so it fills the chip's band 0…ODR/2), independent across
/// axes and of the chip's own noise, and the same for the same seed.
public struct MachineVibration: Sendable, Hashable {
    /// The tones; may be empty when there is only noise.
    public var tones: [VibrationTone]
    /// Broadband noise per axis, g RMS; 0 for none. A value that is not finite and positive adds
    /// nothing.
    public var noise: Double
    /// When the machine runs; nil for always.
    public var schedule: MachineSchedule?

    /// A machine vibration of `tones` and `noise` g RMS, running on `schedule` (nil: always).
    public init(tones: [VibrationTone] = [], noise: Double = 0, schedule: MachineSchedule? = nil) {
        self.tones = tones
        self.noise = noise
        self.schedule = schedule
    }

    /// The tones of `spec`, with `noise` and `schedule`.
    public init(_ spec: VibrationSpec, noise: Double = 0, schedule: MachineSchedule? = nil) {
        self.init(tones: spec.tones, noise: noise, schedule: schedule)
    }

    /// Whether it moves the chip at all: an audible tone or noise above 0.
    public var isAudible: Bool {
        tones.contains(where: \.isAudible) || effectiveNoise > 0
    }

    /// Whether the machine runs at `time`: always without a ``schedule``.
    public func isRunning(at time: Double) -> Bool {
        schedule?.isRunning(at: time) ?? true
    }

    /// Each tone's phase in radians, 0…2π, for the chip's noise seed `seed`: the same seed gives
    /// the same phases, and a tone's phase depends only on the seed and its place in ``tones``.
    public func phases(seed: UInt64) -> [Double] {
        var generator = SplitMix64(seed: seed ^ Self.phaseSeedSalt)
        return tones.map { _ in 2 * Double.pi * generator.nextUnit() }
    }

    /// The tones' acceleration at `time`, in g, device frame, for the chip's noise seed `seed`:
    /// zero while the machine is stopped. What a chip with this vibration senses on top of its
    /// scene, noise apart.
    public func toneAcceleration(at time: Double, seed: UInt64) -> Vector3 {
        guard isRunning(at: time) else { return .zero }
        return Self.sum(tones, phases: phases(seed: seed), at: time)
    }

    /// ``noise`` where it is finite and positive, else 0.
    var effectiveNoise: Double {
        noise.isFinite && noise > 0 ? noise : 0
    }

    /// Keeps the phases' stream apart from the chip's noise, which starts from the same seed.
    static let phaseSeedSalt: UInt64 = 0x7A5E_0F7E_D1B5_0001
    /// Keeps the broadband noise apart from the chip's noise and from the phases.
    static let noiseSeedSalt: UInt64 = 0xB20A_DBA2_D000_0002

    static func sum(_ tones: [VibrationTone], phases: [Double], at time: Double) -> Vector3 {
        var total = Vector3.zero
        for (tone, phase) in zip(tones, phases) {
            let a = tone.acceleration(at: time, phase: phase)
            switch tone.axis {
            case .x: total.x += a
            case .y: total.y += a
            case .z: total.z += a
            }
        }
        return total
    }
}

/// A ``MachineVibration`` ready to sample: its phases drawn and its noise seeded, once.
///
/// Every simulated chip samples its machine through one of these, so the same vibration and seed
/// shake an ADXL345, an ADXL355 and an MPU-6050 alike: the tones' phases and the broadband noise
/// depend only on the seed and the sample number, never on the chip.
public struct MachineStage: Sendable {
    /// The vibration it samples.
    public let vibration: MachineVibration
    private let phases: [Double]
    private let noise: GaussianNoise

    /// `vibration` for a chip whose noise seed is `seed` (the chip's configuration's seed).
    public init(_ vibration: MachineVibration, seed: UInt64) {
        self.vibration = vibration
        phases = vibration.phases(seed: seed)
        var mixer = SplitMix64(seed: seed ^ MachineVibration.noiseSeedSalt)
        noise = GaussianNoise(seed: mixer.next())
    }

    /// The machine's acceleration at sample instant `time` (seconds of the simulation clock),
    /// sample number `serial` (the chip's noise address), in g, device frame: zero while the
    /// machine is stopped. Point-sampled: add it to the scene's force before the chip's errors.
    public func acceleration(at time: Double, serial: UInt64) -> Vector3 {
        guard vibration.isRunning(at: time) else { return .zero }
        var total = MachineVibration.sum(vibration.tones, phases: phases, at: time)
        let rms = vibration.effectiveNoise
        if rms > 0 {
            total += noise.normals(forSample: serial) * rms
        }
        return total
    }
}
