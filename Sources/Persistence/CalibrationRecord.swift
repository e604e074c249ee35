#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Geometry
import Level
import Thermal

/// The accelerometer calibration as `calibration.json` in the state directory holds it: the
/// correction itself and where it came from (method, date, chip, how well it fitted).
///
/// ```json
/// {"format":1,"method":"six_point","date":"2026-12-01T10:00:00Z",
///  "chip":{"bus":"/dev/i2c-1","address":"0x53","devid":"0xE5"},
///  "residual_mg":{"rms":0.4,"max":0.6},
///  "calibration":{"matrix":[[…],[…],[…]],"offset_g":[…]},
///  "faces":[{"face":"+x","mean_g":[…],"samples":200},…]}
/// ```
///
/// A reversal adds `"reversal"`: the mount, the zero error it found and the surface's tilt.
/// Temperature adds `"temperature_c"` (what the calibration holds at), `"temperatures"` (one
/// tumble per temperature, kept so more can be merged) and `"drift"` (a ``DriftModel``); records
/// made before Plumb knew temperatures have none of them and decode as before.
/// The calibration is validated when decoded (``Calibration``), so a damaged file is set aside,
/// never applied.
public struct CalibrationRecord: Codable, Hashable, Sendable {
    /// How the calibration was made.
    public enum Method: String, Codable, Hashable, Sendable {
        /// The six-face tumble: offsets, gains and cross-axis terms.
        case sixPoint = "six_point"
        /// The two-position reversal alone: offsets on the horizontal axes, matrix identity.
        case reversal
        /// A tumble whose offset a later reversal refined.
        case sixPointAndReversal = "six_point+reversal"
        /// No calibration (the identity), only a drift learned in place on an uncalibrated chip
        /// (``CalibrationRecord/learnedDrift(_:chip:date:)``): the drift is still worth removing.
        case drift
    }

    /// Which chip was calibrated, as text people compare: `/dev/i2c-1`, `0x53`, `0xE5`,
    /// `ADXL345`.
    public struct Chip: Codable, Hashable, Sendable {
        public var bus: String
        public var address: String
        /// The first identification register as read (`DEVID`, `DEVID_AD`, `WHO_AM_I`).
        public var devid: String
        /// The chip's model (its description's); absent from records made before Plumb read
        /// other chips, which were all ADXL345s.
        public var model: String?

        public init(bus: String, address: String, devid: String, model: String? = nil) {
            self.bus = bus
            self.address = address
            self.devid = devid
            self.model = model
        }

        /// Whether a calibration recorded for this chip applies to `other`: the same bus, address
        /// and identification register, and the same model when both records name one.
        public func matches(_ other: Chip) -> Bool {
            bus == other.bus && address == other.address && devid == other.devid
                && (model == nil || other.model == nil || model == other.model)
        }

        /// `the ADXL345 at 0x53 on /dev/i2c-1 (ID 0xE5)`.
        public var sentence: String {
            "the \(model ?? "chip") at \(address) on \(bus) (ID \(devid))"
        }
    }

    /// How far the tumble's six means are from the fitted model, in mg.
    public struct Residual: Codable, Hashable, Sendable {
        public var rms: Double
        public var max: Double

        public init(rms: Double, max: Double) {
            self.rms = rms
            self.max = max
        }
    }

    /// One face of the tumble as measured.
    public struct FaceMean: Codable, Hashable, Sendable {
        public var face: Face
        /// The raw mean, g, [x, y, z].
        public var meanG: [Double]
        public var samples: Int

        public init(face: Face, mean: Vector3, samples: Int) {
            self.face = face
            meanG = [mean.x, mean.y, mean.z]
            self.samples = samples
        }

        enum CodingKeys: String, CodingKey {
            case face, samples
            case meanG = "mean_g"
        }
    }

    /// What a reversal found.
    public struct Reversal: Codable, Hashable, Sendable {
        /// `flat` or `upright`.
        public var mount: String
        /// The zero error folded into the offset, device frame, mg [x, y, z].
        public var zeroOffsetMilliG: [Double]
        /// The instrument's roll zero error before this reversal, degrees; nil for `upright`.
        public var zeroRollDeg: Double?
        /// Its pitch zero error (along the bar for `upright`), degrees.
        public var zeroPitchDeg: Double
        /// The surface's true roll at the spot, degrees; nil for `upright`.
        public var surfaceRollDeg: Double?
        /// The surface's true pitch (slope along the bar for `upright`), degrees.
        public var surfacePitchDeg: Double

        public init(_ result: ReversalCalibration) {
            mount = result.mount.name
            zeroOffsetMilliG = [result.zeroOffset.x, result.zeroOffset.y, result.zeroOffset.z].map { $0 * 1000 }
            zeroRollDeg = result.zeroRoll?.degrees
            zeroPitchDeg = result.zeroPitch.degrees
            surfaceRollDeg = result.surfaceRoll?.degrees
            surfacePitchDeg = result.surfacePitch.degrees
        }

        enum CodingKeys: String, CodingKey {
            case mount
            case zeroOffsetMilliG = "zero_offset_mg"
            case zeroRollDeg = "zero_roll_deg"
            case zeroPitchDeg = "zero_pitch_deg"
            case surfaceRollDeg = "surface_roll_deg"
            case surfacePitchDeg = "surface_pitch_deg"
        }
    }

    /// One six-point tumble at one temperature, as kept for the drift fit.
    public struct BenchPointRecord: Codable, Hashable, Sendable {
        /// The mean temperature during the tumble, °C.
        public var temperatureC: Double
        /// When it was made, ISO 8601 UTC.
        public var date: String
        /// The tumble's own calibration.
        public var calibration: Calibration
        /// Its residual, mg.
        public var residualMilliG: Residual

        public init(temperatureC: Double, date: String, calibration: Calibration, residualMilliG: Residual) {
            self.temperatureC = temperatureC
            self.date = date
            self.calibration = calibration
            self.residualMilliG = residualMilliG
        }

        /// The point as the fit takes it: the residual rms as the offset's 1σ.
        public var benchPoint: DriftFit.BenchPoint {
            DriftFit.BenchPoint(celsius: temperatureC, matrix: calibration.matrix, offset: calibration.offset,
                                residualRMS: residualMilliG.rms / 1000)
        }

        enum CodingKeys: String, CodingKey {
            case date, calibration
            case temperatureC = "temperature_c"
            case residualMilliG = "residual_mg"
        }
    }

    /// The file format; see ``StateStore``.
    public var format: Int
    public var method: Method
    /// When it was made, ISO 8601 UTC: `2026-12-01T10:00:00Z`.
    public var date: String
    public var chip: Chip
    /// The tumble's residual; nil for a reversal alone.
    public var residualMilliG: Residual?
    /// The correction: `g = M · (raw − offset)`.
    public var calibration: Calibration
    /// The tumble's six means; nil for a reversal alone.
    public var faces: [FaceMean]?
    /// The last reversal folded in; nil for a tumble alone.
    public var reversal: Reversal?
    /// The temperature the calibration holds at, °C: a tumble's mean temperature, or `T₀` of a
    /// bench drift fit. Nil when unknown (no temperature source, or a record made before).
    public var temperatureC: Double?
    /// The tumbles at several temperatures the drift was fitted from, coolest first; nil before
    /// a second temperature was merged (``merging(_:)``).
    public var benchPoints: [BenchPointRecord]?
    /// The part's drift with temperature, if learned (bench or in place).
    public var drift: DriftModel?

    public init(method: Method, date: String = CalibrationRecord.timestamp(), chip: Chip, residualMilliG: Residual? = nil,
                calibration: Calibration, faces: [FaceMean]? = nil, reversal: Reversal? = nil,
                temperatureC: Double? = nil, benchPoints: [BenchPointRecord]? = nil, drift: DriftModel? = nil) {
        format = StateStore.format
        self.method = method
        self.date = date
        self.chip = chip
        self.residualMilliG = residualMilliG
        self.calibration = calibration
        self.faces = faces
        self.reversal = reversal
        self.temperatureC = temperatureC
        self.benchPoints = benchPoints
        self.drift = drift
    }

    enum CodingKeys: String, CodingKey {
        case format, method, date, chip, calibration, faces, reversal, drift
        case residualMilliG = "residual_mg"
        case temperatureC = "temperature_c"
        case benchPoints = "temperatures"
    }

    /// The current time as ISO 8601 UTC to the second: `2026-12-01T10:00:00Z`.
    public static func timestamp(_ seconds: Int = Int(time(nil))) -> String {
        var now = time_t(seconds)
        var parts = tm()
        gmtime_r(&now, &parts)
        func digits(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2)
            + "T" + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2) + "Z"
    }
}

extension StateStore {
    /// `calibration.json`.
    public static let calibrationFileName = "calibration.json"

    public var calibrationPath: String { directory + "/" + Self.calibrationFileName }

    /// Persists `record`, replacing `calibration.json` atomically (as ``save(settings:)`` does).
    ///
    /// - Throws: ``StateStoreError`` saying which file, what failed and what to do.
    public func save(calibration record: CalibrationRecord) throws(StateStoreError) {
        try write(record, to: calibrationPath, what: "the calibration")
    }

    /// The stored calibration, if any. Never fails, as ``load()``: no file is nil with no
    /// warning; a damaged one (not JSON, another format, an implausible calibration) is set
    /// aside as `calibration.json.corrupt-<UTC>` with a warning, and the sensor is then used
    /// uncalibrated; an unreadable one is left alone, with a warning.
    public func loadCalibration() -> (record: CalibrationRecord?, warning: String?) {
        var warnings: [String] = []
        let record = load(Self.calibrationFileName, fallback: "the sensor is used uncalibrated; run plumb calibrate"
                          + " six-point to calibrate it again", unreadable: "the sensor is used uncalibrated",
                          warnings: &warnings) { bytes throws(StateFileProblem) in
            try Self.decodeCalibration(bytes)
        }
        return (record, warnings.first)
    }

    /// Removes `calibration.json` (a missing file is fine).
    ///
    /// - Throws: ``StateStoreError``.
    public func removeCalibration() throws(StateStoreError) {
        if let problem = FileSystem.remove(calibrationPath) {
            throw StateStoreError(path: calibrationPath, action: "remove the calibration", problem: problem, directory: directory)
        }
    }

    static func decodeCalibration(_ bytes: [UInt8]) throws(StateFileProblem) -> CalibrationRecord {
        // The format first: a newer plumb's file should be named as such, not as a missing key.
        let probe: FormatProbe = try decodeJSON(bytes)
        try checkFormat(probe.format)
        return try decodeJSON(bytes)
    }
}

/// Just the `format` field of a state file.
private struct FormatProbe: Decodable {
    var format: Int
}
