import VibrationVocabulary

/// An axis of the device frame, as the figures and the payload's `axes` name them.
public enum VibrationAxis: String, Sendable, Hashable, CaseIterable {
    case x, y, z
}

/// A tone that stands out of a window's spectrum: one of the strongest few, so that two tones
/// at once are both reported rather than merged into one dominant frequency.
public struct SpectralPeak: Sendable, Hashable {
    /// The tone's frequency, Hz: its bin refined by parabolic interpolation of the log power
    /// with the bins either side (within a tenth of a bin for a lone tone in the Hann window).
    public var frequencyHz: Double
    /// The tone's RMS velocity, mm/s: the acceleration power of its main lobe (the peak bin and
    /// two either side) integrated as the band is, whether or not it lies inside the band; so it
    /// is the tone's own velocity, and for a tone outside the band not part of
    /// ``AxisFigures/velocityRMS``.
    public var velocityRMS: Double
    /// The tone's RMS acceleration over the same bins, g.
    public var accelerationRMS: Double

    public init(frequencyHz: Double, velocityRMS: Double, accelerationRMS: Double) {
        self.frequencyHz = frequencyHz
        self.velocityRMS = velocityRMS
        self.accelerationRMS = accelerationRMS
    }
}

/// The figures of one axis (or of all three together, ``VibrationFigures/overall``) over one
/// window. Every figure is finite.
public struct AxisFigures: Sendable, Hashable {
    /// RMS velocity over the window's ``VibrationFigures/band``, mm/s: the acceleration
    /// spectrum divided by 2πf and summed by Parseval over the bins inside the band, each bin
    /// counted by the share of its width inside it.
    public var velocityRMS: Double
    /// RMS acceleration with gravity removed, g, over the whole spectrum the rate carries (0 to
    /// ODR/2), computed in time. Gravity is each axis's level and linear trend over the window,
    /// fitted by least squares weighted with the Hann window, so a slow tilt goes and a tone's
    /// own samples stay (see ``VibrationAnalyzer``).
    public var accelerationRMS: Double
    /// The largest absolute acceleration with gravity removed, g.
    public var peak: Double
    /// ``peak`` / ``accelerationRMS``: √2 for a sine, 1 for a square wave, higher for knocks.
    /// 0 when there is no vibration at all (an RMS of 0).
    public var crestFactor: Double
    /// The frequency with the most acceleration power, Hz, searched from 2 Hz (below, what the
    /// detrending leaves of a slow tilt would win) to just under ODR/2, refined like a
    /// ``SpectralPeak``'s. 0 when nothing in the window reaches a microgravity (a still window,
    /// or a noiseless one).
    public var dominantHz: Double
    /// The strongest tones, strongest first, at most ``VibrationAnalyzer/maximumPeaks``: local
    /// maxima of the acceleration power at least 20 times the spectrum's median (so noise alone
    /// rarely makes one) and of a microgravity or more, at least three bins apart and clear of a
    /// stronger one's leakage. Empty when nothing stands out.
    public var peaks: [SpectralPeak]

    public init(velocityRMS: Double, accelerationRMS: Double, peak: Double, crestFactor: Double, dominantHz: Double,
                peaks: [SpectralPeak]) {
        self.velocityRMS = velocityRMS
        self.accelerationRMS = accelerationRMS
        self.peak = peak
        self.crestFactor = crestFactor
        self.dominantHz = dominantHz
        self.peaks = peaks
    }

    /// Nothing at all: a still window.
    public static let still = AxisFigures(velocityRMS: 0, accelerationRMS: 0, peak: 0, crestFactor: 0, dominantHz: 0,
                                          peaks: [])
}

/// The vibration figures of one analysis window (`P/vibration`).
///
/// **Overall figures.** ``overall`` combines the axes as the vector they form: its RMS
/// velocity and RMS acceleration are the root-sum-square of the axes' (the RMS of the vector),
/// its peak the largest magnitude the vector reached, its crest factor that peak over that
/// RMS, and its dominant frequency and peaks come from the axes' acceleration power spectra
/// summed. **The zone** is not judged on the overall velocity: ISO 10816 measures each direction
/// and judges the highest, so ``severityVelocity`` (the largest per-axis velocity) is the figure
/// ``zone(_:)`` and a ``ZoneTracker`` use.
public struct VibrationFigures: Sendable, Hashable {
    /// The three axes together (see the type's notes).
    public var overall: AxisFigures
    public var x: AxisFigures
    public var y: AxisFigures
    public var z: AxisFigures
    /// The frequency band the velocities cover: 10 Hz up to min(1000, ODR / 2.56).
    public var band: VelocityBand
    /// The output data rate the samples were taken at, Hz.
    public var rateHz: Double
    /// Samples analysed.
    public var samples: Int
    /// Samples skipped as corrupt since the previous window (a non-finite component, or beyond
    /// ±1000 g, which no accelerometer reads): the window holds the next good samples instead.
    public var skippedSamples: Int
    /// When the window ended: the time of its newest sample, seconds, on the caller's clock.
    public var time: Double
    /// The frequency resolution: the spacing of the spectrum's bins, `rateHz / samples`, Hz.
    public var binWidthHz: Double

    public init(overall: AxisFigures, x: AxisFigures, y: AxisFigures, z: AxisFigures, band: VelocityBand, rateHz: Double,
                samples: Int, skippedSamples: Int, time: Double, binWidthHz: Double) {
        self.overall = overall
        self.x = x
        self.y = y
        self.z = z
        self.band = band
        self.rateHz = rateHz
        self.samples = samples
        self.skippedSamples = skippedSamples
        self.time = time
        self.binWidthHz = binWidthHz
    }

    /// The figures of `axis`.
    public subscript(axis: VibrationAxis) -> AxisFigures {
        switch axis {
        case .x: x
        case .y: y
        case .z: z
        }
    }

    /// Seconds of samples in the window: `samples / rateHz`.
    public var windowSeconds: Double { Double(samples) / rateHz }

    /// When the window began: its span is (`startTime`, ``time``], each sample standing for one
    /// period up to its own time.
    public var startTime: Double { time - windowSeconds }

    /// The axis with the largest velocity: the direction ISO would judge.
    public var severityAxis: VibrationAxis {
        VibrationAxis.allCases.max { self[$0].velocityRMS < self[$1].velocityRMS } ?? .z
    }

    /// The largest per-axis RMS velocity, mm/s: the figure the zone is judged on.
    public var severityVelocity: Double { self[severityAxis].velocityRMS }

    /// The ISO 10816 zone of ``severityVelocity`` for `machine`, without any hold or band (a
    /// ``ZoneTracker`` adds those).
    public func zone(_ machine: MachineClass) -> SeverityZone {
        machine.zone(velocityRMS: severityVelocity)
    }

    /// The figure a ``RunningThreshold`` in `unit` is compared with: the overall RMS velocity
    /// for mm/s, the overall RMS acceleration for g.
    public func runningLevel(_ unit: RunningThreshold.Unit) -> Double {
        switch unit {
        case .millimetresPerSecond: overall.velocityRMS
        case .gravities: overall.accelerationRMS
        }
    }
}
