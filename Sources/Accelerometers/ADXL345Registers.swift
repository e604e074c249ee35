/// The ADXL345 register map (datasheet Rev. G, Table 19), as a typed namespace.
///
/// The driver and the simulated chip share this one file, so the two can never disagree about an
/// address or a bit. Registers 0x01–0x1C are reserved and must not be accessed.
public enum ADXL345Register {
    /// Device ID, read-only; `0xE5` on the ADXL345 and on the ADXL343, which shares the map.
    public static let devid: UInt8 = 0x00
    /// Tap threshold, 62.5 mg/LSB.
    public static let threshTap: UInt8 = 0x1D
    /// X-axis offset, two's complement, 15.6 mg/LSB, added to the output.
    public static let ofsx: UInt8 = 0x1E
    /// Y-axis offset, two's complement, 15.6 mg/LSB.
    public static let ofsy: UInt8 = 0x1F
    /// Z-axis offset, two's complement, 15.6 mg/LSB.
    public static let ofsz: UInt8 = 0x20
    /// Tap duration.
    public static let dur: UInt8 = 0x21
    /// Tap latency.
    public static let latent: UInt8 = 0x22
    /// Tap window.
    public static let window: UInt8 = 0x23
    /// Activity threshold.
    public static let threshAct: UInt8 = 0x24
    /// Inactivity threshold.
    public static let threshInact: UInt8 = 0x25
    /// Inactivity time.
    public static let timeInact: UInt8 = 0x26
    /// Axis enable for activity and inactivity detection.
    public static let actInactCtl: UInt8 = 0x27
    /// Free-fall threshold.
    public static let threshFF: UInt8 = 0x28
    /// Free-fall time.
    public static let timeFF: UInt8 = 0x29
    /// Axis control for single and double tap.
    public static let tapAxes: UInt8 = 0x2A
    /// Source of single and double tap, read-only.
    public static let actTapStatus: UInt8 = 0x2B
    /// Data rate and power mode control; reset value `0x0A` (100 Hz).
    public static let bwRate: UInt8 = 0x2C
    /// Power-saving features control.
    public static let powerCtl: UInt8 = 0x2D
    /// Interrupt enable control.
    public static let intEnable: UInt8 = 0x2E
    /// Interrupt mapping control.
    public static let intMap: UInt8 = 0x2F
    /// Source of interrupts, read-only; reset value `0x02`.
    public static let intSource: UInt8 = 0x30
    /// Data format control.
    public static let dataFormat: UInt8 = 0x31
    /// X-axis data 0; DATAX0…DATAZ1 (0x32–0x37) are read in one six-byte burst.
    public static let dataX0: UInt8 = 0x32
    /// FIFO control.
    public static let fifoCtl: UInt8 = 0x38
    /// FIFO status, read-only.
    public static let fifoStatus: UInt8 = 0x39

    /// The value DEVID reads on an ADXL345 (and ADXL343).
    public static let expectedDeviceID: UInt8 = 0xE5
    /// Bytes in one sample: DATAX0 through DATAZ1.
    public static let sampleByteCount = 6
    /// Entries the FIFO holds.
    public static let fifoCapacity = 32

    /// Power-on values of every readable, non-reserved register (datasheet Table 19).
    public static let resetValues: [UInt8: UInt8] = {
        var values: [UInt8: UInt8] = [devid: expectedDeviceID]
        for register in threshTap...fifoStatus { values[register] = 0x00 }
        values[bwRate] = 0x0A
        values[intSource] = 0x02
        return values
    }()

    /// Whether `register` exists; 0x01–0x1C are reserved, above 0x39 there is nothing.
    public static func isAccessible(_ register: UInt8) -> Bool {
        register == devid || (threshTap...fifoStatus).contains(register)
    }
}

/// BW_RATE (0x2C) bit fields.
public enum BWRate {
    /// Reduced power operation at somewhat higher noise. Self-test requires it clear.
    public static let lowPower: UInt8 = 1 << 4
    /// The output data rate code, bits 3:0: ODR = 3200 / 2^(15 − code) Hz.
    public static let rateMask: UInt8 = 0x0F
}

/// POWER_CTL (0x2D) bit fields.
public enum PowerCtl {
    /// Links activity and inactivity detection.
    public static let link: UInt8 = 1 << 5
    /// Automatic switching to sleep mode.
    public static let autoSleep: UInt8 = 1 << 4
    /// Measurement mode; clear is standby. Configure in standby, then set this.
    public static let measure: UInt8 = 1 << 3
    /// Sleep mode.
    public static let sleep: UInt8 = 1 << 2
    /// Reading frequency in sleep mode, bits 1:0.
    public static let wakeupMask: UInt8 = 0x03
}

/// INT_ENABLE, INT_MAP and INT_SOURCE (0x2E–0x30) bit fields.
public enum Interrupt {
    public static let dataReady: UInt8 = 1 << 7
    public static let singleTap: UInt8 = 1 << 6
    public static let doubleTap: UInt8 = 1 << 5
    public static let activity: UInt8 = 1 << 4
    public static let inactivity: UInt8 = 1 << 3
    public static let freeFall: UInt8 = 1 << 2
    /// FIFO entries reached the watermark (FIFO_CTL samples).
    public static let watermark: UInt8 = 1 << 1
    /// New data replaced unread data; in FIFO modes, the FIFO filled.
    public static let overrun: UInt8 = 1 << 0
}

/// DATA_FORMAT (0x31) bit fields.
public enum DataFormat {
    /// Applies the self-test electrostatic force.
    public static let selfTest: UInt8 = 1 << 7
    /// 3-wire SPI; irrelevant on I²C.
    public static let spi: UInt8 = 1 << 6
    /// Interrupts active low.
    public static let intInvert: UInt8 = 1 << 5
    /// Full resolution: 4 mg/LSB (256 LSB/g nominal) at every range.
    public static let fullResolution: UInt8 = 1 << 3
    /// Left-justified (MSB) data; clear is right-justified with sign extension.
    public static let justify: UInt8 = 1 << 2
    /// The g range, bits 1:0: 0 → ±2 g, 1 → ±4 g, 2 → ±8 g, 3 → ±16 g.
    public static let rangeMask: UInt8 = 0x03
}

/// FIFO_CTL (0x38) bit fields.
public enum FIFOCtl {
    /// Mode, bits 7:6.
    public static let modeShift: UInt8 = 6
    public static let modeMask: UInt8 = 0xC0
    /// Trigger event linked to INT2 rather than INT1.
    public static let trigger: UInt8 = 1 << 5
    /// Watermark (samples), bits 4:0.
    public static let samplesMask: UInt8 = 0x1F
}

/// FIFO_STATUS (0x39) bit fields.
public enum FIFOStatus {
    /// A trigger event occurred.
    public static let triggered: UInt8 = 1 << 7
    /// Entries available, bits 5:0: up to 32 in the FIFO plus the one in the data registers.
    public static let entriesMask: UInt8 = 0x3F
}

/// The FIFO modes of FIFO_CTL bits 7:6.
public enum FIFOMode: UInt8, Sendable, CaseIterable, Codable {
    /// FIFO unused; the data registers hold the newest sample.
    case bypass = 0
    /// Collects up to 32 samples, then stops until read.
    case fifo = 1
    /// Holds the newest 32 samples, discarding the oldest when full.
    case stream = 2
    /// Stream until a trigger, then holds.
    case trigger = 3
}
