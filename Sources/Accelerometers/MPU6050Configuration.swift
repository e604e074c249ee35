import Geometry

/// How an MPU-6050-family part is set up for the accelerometer: the sample-rate divider, the
/// low-pass filter and the range (SMPLRT_DIV, CONFIG, ACCEL_CONFIG and, on the MPU-6500/9250,
/// ACCEL_CONFIG2).
public struct MPU6050Configuration: Sendable, Hashable {
    /// ±2, ±4, ±8 or ±16 g.
    public var range: MPU6050Range = .g16
    /// SMPLRT_DIV: with the DLPF on the sample rate is 1 kHz / (1 + divider).
    public var divider: UInt8 = 9
    /// DLPF_CFG 1…6 (always on here: with 0 or 7 the gyroscope runs at 8 kHz and the divider
    /// counts from 8 kHz, while the accelerometer still updates at 1 kHz).
    public var lowPass: MPU6050LowPass = .hz44
    /// The self-test force on all three axes (ACCEL_CONFIG XA_ST, YA_ST, ZA_ST).
    public var selfTest = false
    /// How many samples the sampling loop lets gather between drains.
    public var watermark = 10

    public init() {}

    /// The gyroscope output rate the divider counts from, with the DLPF on.
    public static let baseRateHz = 1000.0

    /// The sample rate in Hz: 1 kHz / (1 + SMPLRT_DIV).
    public var rateHz: Double { Self.baseRateHz / (1 + Double(divider)) }

    /// The divider whose rate is nearest `hertz`, clamped to 0…255 (1000 Hz … 3.9 Hz).
    public static func divider(forRate hertz: Double) -> UInt8 {
        let ideal = (baseRateHz / hertz - 1).rounded()
        return UInt8(max(0, min(255, ideal.isFinite ? ideal : 255)))
    }

    /// ACCEL_CONFIG (0x1C).
    public var accelConfig: UInt8 {
        (range.rawValue << MPU6050Bits.afsShift) | (selfTest ? MPU6050Bits.selfTestXYZ : 0)
    }

    /// CONFIG (0x1A): DLPF_CFG; FIFO_MODE left 0 (overwrite the oldest when full).
    public var config: UInt8 { lowPass.rawValue }

    /// ACCEL_CONFIG2 (0x1D, MPU-6500/9250): A_DLPF_CFG, with ACCEL_FCHOICE_B 0 (filter on).
    public var accelConfig2: UInt8 { lowPass.rawValue }
}

/// The accelerometer full-scale range, ACCEL_CONFIG AFS_SEL.
public enum MPU6050Range: UInt8, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case g2 = 0, g4 = 1, g8 = 2, g16 = 3

    /// 2, 4, 8 or 16.
    public var gravities: Int { 2 << Int(rawValue) }

    /// 16384, 8192, 4096 or 2048 LSB/g (PS-MPU-6000A Rev. 3.4 §6.2, PS-MPU-9250A Rev. 1.0 Table 2).
    public var countsPerG: Double { 16384 / Double(1 << Int(rawValue)) }

    public init?(gravities: Int) {
        guard let range = Self.allCases.first(where: { $0.gravities == gravities }) else { return nil }
        self = range
    }

    public var description: String { "±\(gravities) g" }
}

/// DLPF_CFG 1…6 and the accelerometer bandwidth each gives (−3 dB, Hz).
///
/// MPU-6050 (RM-MPU-6000A Rev. 4.2, CONFIG): 184, 94, 44, 21, 10, 5 Hz. MPU-6500/9250
/// (RM-MPU-6500A, ACCEL_CONFIG2 with ACCEL_FCHOICE_B = 0): 184, 92, 41, 20, 10, 5 Hz.
public enum MPU6050LowPass: UInt8, Sendable, CaseIterable, Codable {
    case hz184 = 1, hz94 = 2, hz44 = 3, hz21 = 4, hz10 = 5, hz5 = 6

    /// The accelerometer's −3 dB bandwidth on `variant`.
    public func bandwidthHz(on variant: MPU6050Variant) -> Double {
        let mpu6050: [Double] = [184, 94, 44, 21, 10, 5]
        let mpu6500: [Double] = [184, 92, 41, 20, 10, 5]
        return (variant.hasMPU6500RegisterMap ? mpu6500 : mpu6050)[Int(rawValue) - 1]
    }

    /// The widest filter whose bandwidth is at most half of `rateHz` (no aliasing above Nyquist),
    /// or the narrowest (5 Hz) when none is.
    public static func forRate(_ rateHz: Double, on variant: MPU6050Variant) -> Self {
        allCases.first { $0.bandwidthHz(on: variant) <= rateHz / 2 } ?? .hz5
    }
}

/// Decoding of the family's samples.
public enum MPU6050Decoding {
    /// One axis from its high and low bytes (big-endian two's complement), and whether it sits
    /// at a rail: beyond the range the output saturates, so a rail reading is not trusted.
    @inlinable
    public static func counts(high: UInt8, low: UInt8) -> (value: Int, clipped: Bool) {
        let value = Int(Int16(bitPattern: UInt16(high) << 8 | UInt16(low)))
        return (value, value == Int(Int16.max) || value == Int(Int16.min))
    }

    /// One six-byte sample (X_H, X_L, Y_H, Y_L, Z_H, Z_L) into gravity in g.
    @inlinable
    public static func decode<Bytes: RandomAccessCollection>(_ bytes: Bytes, range: MPU6050Range)
        -> (gravity: Vector3, clipped: Bool) where Bytes.Element == UInt8, Bytes.Index == Int {
        let start = bytes.startIndex
        let x = counts(high: bytes[start], low: bytes[start + 1])
        let y = counts(high: bytes[start + 2], low: bytes[start + 3])
        let z = counts(high: bytes[start + 4], low: bytes[start + 5])
        let scale = 1 / range.countsPerG
        return (Vector3(x: Double(x.value) * scale, y: Double(y.value) * scale, z: Double(z.value) * scale),
                x.clipped || y.clipped || z.clipped)
    }
}
