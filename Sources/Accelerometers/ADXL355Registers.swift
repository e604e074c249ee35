/// The ADXL355 register map (ADXL354/ADXL355 datasheet, Rev. D, "Register Map" and "Register
/// Definitions"), as a typed namespace shared by the driver and the simulated chip, so the two can
/// never disagree about an address or a bit.
///
/// Unlike the ADXL345, data is big-endian and left-justified: each axis is 20 bits of two's
/// complement in three registers, bits 19…12 in `xDATA3`, 11…4 in `xDATA2` and 3…0 in the top
/// nibble of `xDATA1`. The register map is checked against Linux's `adxl355_core.c`.
public enum ADXL355Register {
    /// Analog Devices ID, read-only: `0xAD`.
    public static let devidAD: UInt8 = 0x00
    /// Analog Devices MEMS ID, read-only: `0x1D`.
    public static let devidMST: UInt8 = 0x01
    /// Part ID, read-only: `0xED` (octal 355).
    public static let partID: UInt8 = 0x02
    /// Silicon revision, read-only; reported, never checked.
    public static let revID: UInt8 = 0x03
    /// STATUS: see ``ADXL355Status``.
    public static let status: UInt8 = 0x04
    /// FIFO_ENTRIES: bits 6…0, the axis entries (not sample sets) the FIFO holds, 0…96.
    public static let fifoEntries: UInt8 = 0x05
    /// TEMP2: bits 3…0 are the temperature's bits 11…8.
    public static let temp2: UInt8 = 0x06
    /// TEMP1: the temperature's bits 7…0.
    public static let temp1: UInt8 = 0x07
    /// XDATA3; XDATA3…ZDATA1 (0x08–0x10) are the newest sample, read in one nine-byte burst.
    public static let xData3: UInt8 = 0x08
    public static let yData3: UInt8 = 0x0B
    public static let zData3: UInt8 = 0x0E
    /// FIFO_DATA: each three bytes read pop one axis entry. The address does not auto-increment
    /// on reads of FIFO_DATA, so one long burst reads many entries.
    public static let fifoData: UInt8 = 0x11
    /// OFFSET_X_H…OFFSET_Z_L (0x1E–0x23), 16-bit offsets; Plumb leaves them at 0 and corrects in
    /// software.
    public static let offsetXH: UInt8 = 0x1E
    /// ACT_EN, ACT_THRESH_H/L, ACT_COUNT: activity detection, unused.
    public static let actEn: UInt8 = 0x24
    /// FILTER: see ``ADXL355Filter``.
    public static let filter: UInt8 = 0x28
    /// FIFO_SAMPLES: the watermark in axis entries (reset 0x60 = 96).
    public static let fifoSamples: UInt8 = 0x29
    /// INT_MAP, unused.
    public static let intMap: UInt8 = 0x2A
    /// SYNC: external clock and synchronisation, left at 0 (internal clock).
    public static let sync: UInt8 = 0x2B
    /// RANGE: see ``ADXL355Range``; bit 7 is I2C_HS, bit 6 INT_POL.
    public static let range: UInt8 = 0x2C
    /// POWER_CTL: see ``ADXL355PowerCtl``.
    public static let powerCtl: UInt8 = 0x2D
    /// SELF_TEST: bit 0 ST1 (self-test mode), bit 1 ST2 (the electrostatic force).
    public static let selfTest: UInt8 = 0x2E
    /// RESET: writing ``resetCode`` resets the device as at power-on.
    public static let reset: UInt8 = 0x2F

    /// The highest register of the map; reads above it return 0 on the simulated chip.
    public static let last: UInt8 = 0x2F

    public static let expectedDevidAD: UInt8 = 0xAD
    public static let expectedDevidMST: UInt8 = 0x1D
    public static let expectedPartID: UInt8 = 0xED
    /// The code that, written to RESET, resets the chip.
    public static let resetCode: UInt8 = 0x52
    /// Wait after a reset before the next access (the Linux driver waits 5 ms; the datasheet's
    /// power-on time is about as long).
    public static let resetSeconds = 0.005

    /// Bytes of one axis entry, in the data registers and in the FIFO.
    public static let entryByteCount = 3
    /// Bytes of one x/y/z sample set.
    public static let setByteCount = 9
    /// Axis entries the FIFO holds: 96, 32 sets.
    public static let fifoEntryCapacity = 96
    public static let fifoSetCapacity = 32

    /// SELF_TEST bits.
    public static let selfTestST1: UInt8 = 0x01
    public static let selfTestST2: UInt8 = 0x02
}

/// STATUS (0x04) bits.
public enum ADXL355Status {
    public static let dataReady: UInt8 = 0x01
    public static let fifoFull: UInt8 = 0x02
    /// The FIFO overran: sets were lost since STATUS was last read. Cleared by reading STATUS.
    public static let fifoOverrun: UInt8 = 0x04
    public static let activity: UInt8 = 0x08
    public static let nvmBusy: UInt8 = 0x10
}

/// POWER_CTL (0x2D) bits; reset value 0x01 (standby).
public enum ADXL355PowerCtl {
    /// 1: standby, 0: measurement. Configuration registers are written in standby.
    public static let standby: UInt8 = 0x01
    /// Turns the temperature processing off.
    public static let tempOff: UInt8 = 0x02
    /// Turns the DRDY output off.
    public static let drdyOff: UInt8 = 0x04
}

/// The measurement range, RANGE bits 1…0 (0 is reserved).
public enum ADXL355Range: UInt8, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case g2 = 1, g4 = 2, g8 = 3

    /// The nominal full scale Plumb names the range by: 2, 4 or 8 (±2.048, ±4.096, ±8.192 g).
    public var gravities: Int { 1 << Int(rawValue) }

    /// The exact full scale: 2.048, 4.096 or 8.192 g, which is 2¹⁹ LSB.
    public var fullScaleG: Double { Double(1 << 19) / countsPerG }

    /// Nominal LSB per g: 256 000, 128 000 or 64 000 (3.9, 7.8 and 15.6 µg/LSB).
    public var countsPerG: Double { 512_000 / Double(gravities) }

    public init?(gravities: Int) {
        guard let range = Self.allCases.first(where: { $0.gravities == gravities }) else { return nil }
        self = range
    }

    /// RANGE bits 1…0 of `register`, nil for the reserved code 0.
    public init?(register: UInt8) {
        self.init(rawValue: register & Self.rangeMask)
    }

    public static let rangeMask: UInt8 = 0x03
    /// I2C_HS (bit 7, set at reset): high-speed mode; Plumb leaves it as the chip had it.
    public static let i2cHighSpeed: UInt8 = 0x80

    public var description: String {
        "±" + ["", "2.048", "4.096", "8.192"][Int(rawValue)] + " g"
    }
}

/// FILTER (0x28): ODR_LPF in bits 3…0, HPF_CORNER in bits 6…4 (0: high-pass off, which a level
/// needs, since gravity is DC).
public enum ADXL355Filter {
    public static let odrMask: UInt8 = 0x0F
    public static let hpfMask: UInt8 = 0x70

    /// Output data rate for ODR_LPF `code` 0…10: 4000 / 2^code Hz, 4000 Hz down to 3.906 Hz; nil
    /// for the reserved codes above 10.
    public static func rateHz(code: UInt8) -> Double? {
        code <= 10 ? 4000 / Double(1 << Int(code)) : nil
    }

    /// The ODR_LPF codes, slowest rate first.
    public static let codes: [UInt8] = Array((0...10).reversed())

    /// The low-pass corner the chip sets with the rate: a quarter of it.
    public static func lowPassHz(rateHz: Double) -> Double { rateHz / 4 }
}
