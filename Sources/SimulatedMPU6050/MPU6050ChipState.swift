#if canImport(Glibc)
import Glibc
#endif
import Accelerometers
import Geometry
import SimulatedADXL345

/// The simulated part's registers, FIFO and sample clock; lives under one lock, so each bus call
/// is one atomic transaction. Samples are produced lazily, at each access, for the instants that
/// have passed. Public only as ``SimulatedMPU6050``'s ``SimulatedChip/State``: no one outside the
/// package makes or reads one.
public struct MPU6050ChipState: SimulatedChipState {
    var registers: [UInt8]
    /// FIFO bytes, oldest first.
    var fifo: [UInt8] = []
    /// ACCEL_XOUT_H…ZOUT_L as last converted.
    var data = [UInt8](repeating: 0, count: 6)
    /// TEMP_OUT as last converted.
    var temperatureRaw: Int16 = 0
    /// INT_STATUS, latched until read.
    var intStatus: UInt8 = 0

    /// When sample 0 of the current grid falls due; nil asleep.
    var firstSampleTime: Double?
    var nextSampleNumber = 0
    /// Samples produced since power-on: the noise address of the next one.
    var serial: UInt64 = 0
    public var now: Double

    public var configuration: SimulatedMPU6050.Configuration
    let noise: SeededNormals
    /// TEMP_OUT's noise, apart from the axes' so that the acceleration noise of a seed is as it was.
    let temperatureNoise: SeededNormals
    /// The machine's vibration, ready to sample; nil without one.
    public var machine: MachineStage?
    /// The connection and its fault (``configuration``'s `fault` is kept equal to its own).
    public var connection: ConnectionFaultState
    public var statistics = SimulatedMPU6050.Statistics()
    public var writeLog: [RegisterWrite] = []

    init(configuration: SimulatedMPU6050.Configuration, time: Double) {
        self.configuration = configuration
        noise = SeededNormals(seed: configuration.seed)
        temperatureNoise = SeededNormals(seed: configuration.seed ^ 0x7E3F_6050_0000_0001)
        machine = configuration.vibration.map { MachineStage($0, seed: configuration.seed) }
        connection = ConnectionFaultState(configuration.fault)
        now = time.isFinite ? time : 0
        registers = []
        powerOnReset()
    }

    var variant: MPU6050Variant { configuration.variant }
    var capacity: Int { variant.fifoBytes }

    /// Every register at its reset value: 0 but PWR_MGMT_1 (0x40, asleep, on the MPU-6050; 0x01
    /// on the MPU-6500/9250, whose register maps give that reset value) and WHO_AM_I; the trims
    /// are factory OTP and survive.
    mutating func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 128)
        registers[Int(MPU6050Register.pwrMgmt1)] = variant.hasMPU6500RegisterMap ? 0x01 : 0x40
        registers[Int(MPU6050Register.whoAmI)] = configuration.effectiveWhoAmI
        let codes = configuration.effectiveSelfTestCodes
        if variant.hasMPU6500RegisterMap {
            for (index, code) in codes.enumerated() { registers[0x0D + index] = code }
        } else {
            // XA_TEST[4:2] in bits 7:5 of 0x0D…0x0F; the low two bits of each in 0x10.
            for (index, code) in codes.enumerated() { registers[0x0D + index] = (code >> 2 & 0x07) << 5 }
            registers[0x10] = (codes[0] & 0x03) << 4 | (codes[1] & 0x03) << 2 | codes[2] & 0x03
        }
        fifo.removeAll()
        intStatus = 0
        restartGrid()
    }

    // MARK: Registers

    public mutating func read(from start: UInt8, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var register = Int(start)
        for _ in 0..<count {
            bytes.append(readByte(register))
            // FIFO_R_W does not auto-increment: a burst keeps popping the FIFO.
            if register != Int(MPU6050Register.fifoRW) { register = (register + 1) & 0x7F }
        }
        return bytes
    }

    private mutating func readByte(_ register: Int) -> UInt8 {
        switch register {
        case 0x3B...0x40:
            return data[register - 0x3B]
        case 0x41:
            return UInt8(truncatingIfNeeded: UInt16(bitPattern: temperatureRaw) >> 8)
        case 0x42:
            return UInt8(truncatingIfNeeded: UInt16(bitPattern: temperatureRaw))
        case Int(MPU6050Register.intStatus):
            defer { intStatus = 0 }
            return intStatus
        case Int(MPU6050Register.fifoCountH):
            return UInt8(fifo.count >> 8)
        case Int(MPU6050Register.fifoCountH) + 1:
            return UInt8(fifo.count & 0xFF)
        case Int(MPU6050Register.fifoRW):
            guard !fifo.isEmpty else {
                statistics.emptyFIFOReads += 1
                return 0
            }
            statistics.fifoBytesRead += 1
            return fifo.removeFirst()
        default:
            return registers[register]
        }
    }

    public mutating func write(_ register: UInt8, value: UInt8) {
        writeLog.append(RegisterWrite(register: register, value: value))
        switch register {
        case MPU6050Register.whoAmI, MPU6050Register.intStatus, 0x3B...0x42, 0x72, 0x73, 0x74:
            return  // read-only (FIFO writes through FIFO_R_W are not modelled)
        case MPU6050Register.pwrMgmt1 where value & MPU6050Bits.deviceReset != 0:
            statistics.deviceResets += 1
            powerOnReset()
        case MPU6050Register.userCtrl:
            if value & MPU6050Bits.userFIFOReset != 0 {
                fifo.removeAll()
                statistics.fifoResets += 1
            }
            registers[Int(register)] = value & ~(MPU6050Bits.userFIFOReset | 0x03)  // reset bits self-clear
        case MPU6050Register.pwrMgmt1, MPU6050Register.smplrtDiv, MPU6050Register.config, MPU6050Register.accelConfig2:
            let before = registers[Int(register)]
            registers[Int(register)] = value
            if before != value { restartGrid() }
        default:
            registers[Int(register)] = value
        }
    }

    // MARK: The sample clock

    var isAwake: Bool { registers[Int(MPU6050Register.pwrMgmt1)] & MPU6050Bits.sleep == 0 }

    /// 1 kHz with DLPF_CFG 1…6, else 8 kHz (the gyroscope's output rate), over 1 + SMPLRT_DIV.
    var rateHz: Double {
        let dlpf = registers[Int(MPU6050Register.config)] & MPU6050Bits.dlpfMask
        let base = (1...6).contains(dlpf) ? 1000.0 : 8000.0
        return base / (1 + Double(registers[Int(MPU6050Register.smplrtDiv)]))
    }

    /// The accelerometer's −3 dB bandwidth from its filter setting.
    var bandwidthHz: Double {
        if variant.hasMPU6500RegisterMap {
            let config2 = registers[Int(MPU6050Register.accelConfig2)]
            if config2 & MPU6050Bits.accelFChoiceB != 0 { return 1130 }
            return [460, 184, 92, 41, 20, 10, 5, 460][Int(config2 & MPU6050Bits.dlpfMask)]
        }
        return [260, 184, 94, 44, 21, 10, 5, 260][Int(registers[Int(MPU6050Register.config)] & MPU6050Bits.dlpfMask)]
    }

    var fifoCollects: Bool {
        registers[Int(MPU6050Register.userCtrl)] & MPU6050Bits.userFIFOEnable != 0
            && registers[Int(MPU6050Register.fifoEnable)] & MPU6050Bits.accelFIFOEnable != 0
    }

    /// A new grid from now: the first sample one period on; none asleep.
    mutating func restartGrid() {
        firstSampleTime = isAwake ? now + 1 / rateHz : nil
        nextSampleNumber = 0
    }

    /// Brings the chip up to `time`: an unplug that has begun power-cycles it
    /// (``ConnectionFaultState/takePowerCycle(at:)``), then every sample due is produced.
    public mutating func synchronize(to time: Double) {
        let target = time.isFinite ? max(now, time) : now
        if let lostPower = connection.takePowerCycle(at: target) {
            // The chip ran until it lost power; it comes back as from power-on (the MPU-6050
            // asleep), its FIFO and data registers empty.
            produceSamples(until: lostPower)
            statistics.bytesLost += fifo.count
            powerOnReset()
            data = [UInt8](repeating: 0, count: data.count)
            temperatureRaw = 0
            statistics.powerCycles += 1
        }
        produceSamples(until: target)
    }

    /// Every sample due at or before `time`, converted and, with the FIFO on, written. After a
    /// long gap only the samples a full FIFO could still hold are computed; the rest are counted.
    private mutating func produceSamples(until time: Double) {
        guard time.isFinite else { return }
        now = max(now, time)
        guard let first = firstSampleTime else { return }
        let rate = rateHz
        let span = min((now - first) * rate + 1e-6, 1e15)
        guard span >= Double(nextSampleNumber) else { return }
        let due = Int(span.rounded(.down)) - nextSampleNumber + 1
        let computed = min(due, capacity / MPU6050Register.sampleByteCount + 2)
        if due > computed, fifoCollects { overflow(bytes: (due - computed) * MPU6050Register.sampleByteCount) }
        for index in (due - computed)..<due {
            let number = nextSampleNumber + index
            convert(at: first + Double(number) / rate, serial: serial &+ UInt64(index))
        }
        statistics.samplesProduced += due
        nextSampleNumber += due
        serial &+= UInt64(due)
    }

    /// One conversion: the scene and the machine's vibration through the part's errors
    /// (nonlinearity, sensitivity, offset, the last two drifting with the die temperature at
    /// `time`), self-test force and noise, quantized at the range; the data registers, TEMP_OUT
    /// (the same die temperature, plus its own noise) and, with the FIFO on, six FIFO bytes.
    private mutating func convert(at time: Double, serial: UInt64) {
        let accelConfig = registers[Int(MPU6050Register.accelConfig)]
        let range = MPU6050Range(rawValue: (accelConfig & MPU6050Bits.afsMask) >> MPU6050Bits.afsShift) ?? .g2
        var force = configuration.scene.gravity(at: time)
        if let machine { force += machine.acceleration(at: time, serial: serial) }
        force = CubicNonlinearity.bow(force, by: configuration.nonlinearity, fullScale: Double(range.gravities))
        let celsius = configuration.dieTemperature(at: time)
        let drift = configuration.thermalDrift(at: celsius)
        let scaled = configuration.sensitivity * force
        var value = Vector3(x: scaled.x * drift.scale.x, y: scaled.y * drift.scale.y, z: scaled.z * drift.scale.z)
            + configuration.offset / 1000 + drift.offset
        let response = selfTestResponseG
        if accelConfig & 0x80 != 0 { value.x += response.x }
        if accelConfig & 0x40 != 0 { value.y += response.y }
        if accelConfig & 0x20 != 0 { value.z += response.z }
        let density = configuration.effectiveNoiseDensity
        if density > 0 {
            value += noise.normals(forSample: serial) * (density * bandwidthHz.squareRoot())
        }
        let words = [value.x, value.y, value.z].map { Self.word($0 * range.countsPerG) }
        data = words.flatMap { word in
            [UInt8(truncatingIfNeeded: UInt16(bitPattern: word) >> 8), UInt8(truncatingIfNeeded: UInt16(bitPattern: word))]
        }
        temperatureRaw = Self.word(temperatureCounts(celsius: celsius, serial: serial))
        intStatus |= MPU6050Bits.dataReady
        if fifoCollects { push(data) }
    }

    /// TEMP_OUT for die temperature `celsius` plus the sensor's noise for conversion `serial`:
    /// (T − 36.53) × 340 on the MPU-6050 (PS-MPU-6000A §6.3: −521 LSB at 35 °C, 340 LSB/°C),
    /// (T − 21) × 333.87 on the MPU-6500/9250.
    private func temperatureCounts(celsius: Double, serial: UInt64) -> Double {
        var celsius = celsius
        if configuration.temperatureNoiseCelsius > 0 {
            celsius += temperatureNoise.normals(forSample: serial).x * configuration.temperatureNoiseCelsius
        }
        return variant.hasMPU6500RegisterMap ? (celsius - 21) * 333.87 : (celsius - 35) * 340 - 521
    }

    /// The self-test force in g per axis: the factory value of the part's codes (MPU-6050: at
    /// ±8 g, 1392.64 LSB × 2.70588^((code − 1) / 30) for 0.34 g at code 1 up to 0.92 g at code 31;
    /// MPU-6500/9250: at ±2 g, 2620 LSB × 1.01^(code − 1)), off by ``selfTestError``.
    private var selfTestResponseG: Vector3 {
        let codes = configuration.effectiveSelfTestCodes.map(Double.init)
        let error = configuration.selfTestError
        func factory(_ code: Double) -> Double {
            guard code > 0 else { return 0 }
            return variant.hasMPU6500RegisterMap ? 2620 * exp(log(1.01) * (code - 1)) / 16384
                : 0.34 * exp(log(0.92 / 0.34) * (code - 1) / 30)
        }
        return Vector3(x: factory(codes[0]) * (1 + error.x), y: factory(codes[1]) * (1 + error.y),
                       z: factory(codes[2]) * (1 + error.z))
    }

    /// Writes a sample into the FIFO. When full, the MPU-6050 (and the MPU-6500/9250 with
    /// CONFIG FIFO_MODE 0) overwrites its oldest bytes; with FIFO_MODE 1 the write is dropped.
    /// Either way FIFO_OFLOW_INT is set when INT_ENABLE FIFO_OFLOW_EN is.
    private mutating func push(_ bytes: [UInt8]) {
        if fifo.count + bytes.count > capacity {
            let stops = variant.hasMPU6500RegisterMap
                && registers[Int(MPU6050Register.config)] & MPU6050Bits.fifoModeStopWhenFull != 0
            if stops {
                overflow(bytes: bytes.count)
                return
            }
            let excess = fifo.count + bytes.count - capacity
            fifo.removeFirst(excess)
            overflow(bytes: excess)
        }
        fifo += bytes
    }

    private mutating func overflow(bytes: Int) {
        statistics.bytesLost += bytes
        if registers[Int(MPU6050Register.intEnable)] & MPU6050Bits.fifoOverflow != 0 {
            intStatus |= MPU6050Bits.fifoOverflow
        }
    }

    /// Rounds to a 16-bit output word; the output saturates at the rails.
    static func word(_ counts: Double) -> Int16 {
        let rounded = counts.rounded(.toNearestOrAwayFromZero)
        guard rounded.isFinite else { return 0 }
        return Int16(max(Double(Int16.min), min(Double(Int16.max), rounded)))
    }
}
