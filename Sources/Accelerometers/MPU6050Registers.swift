/// The MPU-6050 family's register map, as far as the accelerometer needs it: names and bit fields
/// as the register maps print them (MPU-6000/MPU-6050 Register Map and Descriptions, RM-MPU-6000A-00
/// Rev. 4.2; MPU-6500 Register Map RM-MPU-6500A-00 Rev. 2.1; MPU-9250 Register Map RM-MPU-9250A-00
/// Rev. 1.6). The accelerometer, temperature, FIFO and power registers sit at the same addresses on
/// all three; where the MPU-6500 and MPU-9250 differ it says so.
public enum MPU6050Register {
    // MARK: Self-test trims
    /// MPU-6050: SELF_TEST_X…Z (0x0D…0x0F) bits 7:5 are XA_TEST[4:2]…ZA_TEST[4:2]; SELF_TEST_A (0x10)
    /// holds the low two bits of each (5:4 X, 3:2 Y, 1:0 Z). MPU-6500/9250: SELF_TEST_X/Y/Z_ACCEL
    /// (0x0D…0x0F) are each one 8-bit code.
    public static let selfTestX: UInt8 = 0x0D
    public static let selfTestY: UInt8 = 0x0E
    public static let selfTestZ: UInt8 = 0x0F
    /// MPU-6050 only: the low bits of the accelerometer's trim codes.
    public static let selfTestA: UInt8 = 0x10

    // MARK: Configuration
    /// Sample rate = gyroscope output rate / (1 + SMPLRT_DIV).
    public static let smplrtDiv: UInt8 = 0x19
    /// CONFIG: bits 2:0 DLPF_CFG; on the MPU-6500/9250 bit 6 is FIFO_MODE (1: stop when full).
    public static let config: UInt8 = 0x1A
    public static let gyroConfig: UInt8 = 0x1B
    /// ACCEL_CONFIG: bits 7:5 XA_ST, YA_ST, ZA_ST; bits 4:3 AFS_SEL.
    public static let accelConfig: UInt8 = 0x1C
    /// MPU-6500/9250 only: ACCEL_CONFIG2, bit 3 ACCEL_FCHOICE_B, bits 2:0 A_DLPF_CFG (the
    /// accelerometer's own low-pass filter; on the MPU-6050 CONFIG sets it).
    public static let accelConfig2: UInt8 = 0x1D
    /// FIFO_EN: bit 3 ACCEL_FIFO_EN puts ACCEL_XOUT_H…ZOUT_L, six bytes, into the FIFO each sample.
    public static let fifoEnable: UInt8 = 0x23
    /// INT_ENABLE: bit 4 FIFO_OFLOW_EN.
    public static let intEnable: UInt8 = 0x38
    /// INT_STATUS: bit 4 FIFO_OFLOW_INT, bit 0 DATA_RDY_INT; cleared by reading it.
    public static let intStatus: UInt8 = 0x3A

    // MARK: Data
    /// ACCEL_XOUT_H…ACCEL_ZOUT_L, six bytes, each axis big-endian two's complement.
    public static let accelXOutH: UInt8 = 0x3B
    /// TEMP_OUT_H, TEMP_OUT_L: big-endian two's complement.
    public static let tempOutH: UInt8 = 0x41

    // MARK: Control
    public static let signalPathReset: UInt8 = 0x68
    /// USER_CTRL: bit 6 FIFO_EN, bit 2 FIFO_RESET (self-clearing).
    public static let userCtrl: UInt8 = 0x6A
    /// PWR_MGMT_1: bit 7 DEVICE_RESET, bit 6 SLEEP, bits 2:0 CLKSEL.
    public static let pwrMgmt1: UInt8 = 0x6B
    /// PWR_MGMT_2: bits 5:3 STBY_XA…ZA, bits 2:0 STBY_XG…ZG.
    public static let pwrMgmt2: UInt8 = 0x6C
    /// FIFO_COUNTH, FIFO_COUNTL: bytes in the FIFO, big-endian; read high then low.
    public static let fifoCountH: UInt8 = 0x72
    /// FIFO_R_W: each read pops one byte; a burst read stays on this register.
    public static let fifoRW: UInt8 = 0x74
    /// WHO_AM_I.
    public static let whoAmI: UInt8 = 0x75

    /// Bytes of one accelerometer sample in the FIFO and the data registers.
    public static let sampleByteCount = 6
}

/// Bit fields of the registers above.
public enum MPU6050Bits {
    public static let deviceReset: UInt8 = 0x80
    public static let sleep: UInt8 = 0x40
    /// CLKSEL 1: the PLL on the X gyroscope, which the datasheets recommend over the internal
    /// 8 MHz oscillator (CLKSEL 1 is "auto select" on the MPU-6500/9250, which picks the PLL).
    public static let clockPLL: UInt8 = 0x01
    public static let accelFIFOEnable: UInt8 = 0x08
    public static let userFIFOEnable: UInt8 = 0x40
    public static let userFIFOReset: UInt8 = 0x04
    public static let fifoOverflow: UInt8 = 0x10
    public static let dataReady: UInt8 = 0x01
    public static let selfTestXYZ: UInt8 = 0xE0
    public static let afsShift: UInt8 = 3
    public static let afsMask: UInt8 = 0x18
    public static let dlpfMask: UInt8 = 0x07
    /// MPU-6500/9250 CONFIG bit 6: when the FIFO is full, further writes are dropped (1) rather
    /// than overwriting the oldest data (0, the reset value).
    public static let fifoModeStopWhenFull: UInt8 = 0x40
    /// MPU-6500/9250 ACCEL_CONFIG2 bit 3: bypass the accelerometer DLPF (1.13 kHz, 4 kHz rate).
    public static let accelFChoiceB: UInt8 = 0x08
}

/// Which register map a part follows: the MPU-6050's, or the MPU-6500's (which the MPU-9250
/// embeds).
public enum MPU6050Variant: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case mpu6050 = "MPU-6050"
    case mpu6500 = "MPU-6500"
    case mpu9250 = "MPU-9250"

    /// WHO_AM_I of a genuine part: 0x68, 0x70, 0x71.
    public var whoAmI: UInt8 {
        switch self {
        case .mpu6050: 0x68
        case .mpu6500: 0x70
        case .mpu9250: 0x71
        }
    }

    /// Whether it follows the MPU-6500 register map: ACCEL_CONFIG2, 8-bit self-test codes, a
    /// 512-byte FIFO, and the 333.87 LSB/°C temperature sensor.
    public var hasMPU6500RegisterMap: Bool { self != .mpu6050 }

    /// FIFO size in bytes: 1024 on the MPU-6050 (RM-MPU-6000A Rev. 4.2, FIFO_COUNT), 512 on the MPU-6500/9250 by
    /// default (the Linux inv_mpu6050 driver's `fifo_size` agrees).
    public var fifoBytes: Int { hasMPU6500RegisterMap ? 512 : 1024 }

    /// Whole six-byte samples the FIFO holds: 170 and 85.
    public var fifoSamples: Int { fifoBytes / MPU6050Register.sampleByteCount }

    /// The temperature sensor: MPU-6050 °C = raw / 340 + 36.53 (PS-MPU-6000A Rev. 3.4 §6.3:
    /// 340 LSB/°C, −521 LSB at 35 °C, and RM-MPU-6000A Rev. 4.2, TEMP_OUT); MPU-6500/9250
    /// °C = raw / 333.87 + 21 (RM-MPU-6500A and RM-MPU-9250A, TEMP_OUT, RoomTemp_Offset 0 LSB at
    /// 21 °C). Noise 0.1 °C rms on each: neither product specification states one; 0.1 °C
    /// (about 34 LSB) is Plumb's estimate of the reading-to-reading scatter a still part's
    /// TEMP_OUT shows, well above its 0.003 °C step.
    public var temperature: TemperatureSensor {
        hasMPU6500RegisterMap
            ? TemperatureSensor(register: MPU6050Register.tempOutH, byteCount: 2, lsbPerDegree: 333.87,
                                offsetLSB: 0, offsetDegrees: 21, temperatureNoiseCelsius: 0.1)
            : TemperatureSensor(register: MPU6050Register.tempOutH, byteCount: 2, lsbPerDegree: 340,
                                offsetLSB: 0, offsetDegrees: 36.53, temperatureNoiseCelsius: 0.1)
    }

    public var description: String { rawValue }
}

/// What a WHO_AM_I value says: a genuine part, a clone seen on common boards (accepted with a
/// warning), or something else.
public struct MPU6050Identification: Sendable, Hashable {
    /// The register map the driver uses for it.
    public var variant: MPU6050Variant
    /// The value read.
    public var whoAmI: UInt8
    /// Why the value is not a genuine part's, for the log; nil for a genuine part.
    public var warning: String?

    /// Clone and sibling IDs and the register map to use, with what is known of them:
    /// - 0x98 on boards sold as MPU-6050 (GY-521): ElectronicCats/mpu6050 issue 21 and PR 25
    ///   ("13 of 20" modules from three sellers); Linux's inv_mpu6050 knows 0x98 as the ICM-20689.
    ///   Read with the MPU-6050's map, as the boards are sold.
    ///
    /// Not 0x72: no report of it was found (searched GitHub issues of the common MPU-6050 and
    /// MPU-9250 libraries); a part reading it is refused with the value named, and is one line
    /// here once a board is known.
    /// - 0x73, the MPU-9255 (Linux inv_mpu6050; micropython-mpu9x50 issue 25: parts stamped
    ///   "MPU-9250/6500"). MPU-6500 map.
    /// - 0x74, the MPU-6515 (Linux inv_mpu6050; IMU-WhoAmIVerifier issue 2: a "GY-6500"). MPU-6500 map.
    /// - 0x75, boards sold as MPU-9250 without a magnetometer (kriswiner/MPU9250 issue 486).
    ///   MPU-6500 map.
    /// - 0x78, the MPU-6880 (Linux inv_mpu6050), also on boards sold as MPU-9250
    ///   (kriswiner/MPU9250 issue 378, hideakitai/MPU9250 issue 52). MPU-6500 map.
    public static let clones: [(whoAmI: UInt8, variant: MPU6050Variant, note: String)] = [
        (0x73, .mpu9250, "an MPU-9255 or a part sold as MPU-9250"),
        (0x74, .mpu6500, "an MPU-6515 or a part sold as MPU-6500"),
        (0x75, .mpu6500, "a part sold as MPU-9250, without its magnetometer"),
        (0x78, .mpu6500, "an MPU-6880 or a part sold as MPU-9250"),
        (0x98, .mpu6050, "a clone sold as MPU-6050 (the ICM-20689 also reads 0x98)"),
    ]

    /// The identification for `whoAmI`, or nil for a value neither genuine nor a known clone.
    public init?(whoAmI: UInt8) {
        self.whoAmI = whoAmI
        if let genuine = MPU6050Variant.allCases.first(where: { $0.whoAmI == whoAmI }) {
            variant = genuine
            warning = nil
            return
        }
        guard let clone = Self.clones.first(where: { $0.whoAmI == whoAmI }) else { return nil }
        variant = clone.variant
        warning = "WHO_AM_I reads \(hexByte(whoAmI)), not a genuine MPU-6050 (0x68), MPU-6500 (0x70) or "
            + "MPU-9250 (0x71): probably \(clone.note). Reading it as \(clone.variant); its offsets, noise, "
            + "temperature and self-test may not match that datasheet."
    }
}

/// `0x68`.
func hexByte(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return "0x" + (digits.count < 2 ? "0" + digits : digits)
}
