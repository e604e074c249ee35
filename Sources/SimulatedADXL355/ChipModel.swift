import Accelerometers
import Geometry
import SimulatedADXL345

/// The simulated ADXL355's registers, FIFO and sample clock, advanced lazily: each bus access
/// first produces the samples due since the last one, at their own instants. Public only as
/// ``SimulatedADXL355``'s ``SimulatedChip/State``: no one outside the package makes or reads one.
public struct ChipModel: SimulatedChipState {
    /// One axis entry as the FIFO holds it.
    struct Entry: Sendable, Hashable {
        var counts: Int
        var isX: Bool
    }

    public var configuration: SimulatedADXL355.Configuration
    private(set) var registers = [UInt8](repeating: 0, count: Int(ADXL355Register.last) + 1)
    private(set) var fifo: [Entry] = []
    /// The entry a FIFO_DATA read is part-way through, and how many of its bytes went out.
    private var entryUnderRead: [UInt8]?
    private var entryBytesRead = 0
    public private(set) var now: Double
    /// When sample 0 of the running grid falls due; nil in standby.
    private var firstSampleTime: Double?
    private var nextSampleNumber = 0
    /// Serial of the next sample for the noise: it keeps counting across grids.
    private var serial: UInt64 = 0
    private var overrun = false
    private var dataReady = false
    private let noise: SeededNormals
    /// The temperature sensor's noise, apart from the axes' so that reading TEMP2/TEMP1 leaves
    /// the acceleration noise of a seed as it was.
    private let temperatureNoise: SeededNormals
    /// Temperature readings made since power-on: the noise address of the next.
    private var temperatureReads: UInt64 = 0
    /// The machine's vibration, ready to sample; nil without one.
    public var machine: MachineStage?
    /// The connection and its fault (``configuration``'s `fault` is kept equal to its own).
    public var connection: ConnectionFaultState
    public var statistics = SimulatedADXL355.Statistics()
    public var writeLog: [RegisterWrite] = []

    init(configuration: SimulatedADXL355.Configuration, time: Double) {
        self.configuration = configuration
        now = time
        noise = SeededNormals(seed: configuration.seed)
        temperatureNoise = SeededNormals(seed: configuration.seed ^ 0x7E3F_0355_0000_0001)
        machine = configuration.vibration.map { MachineStage($0, seed: configuration.seed) }
        connection = ConnectionFaultState(configuration.fault)
        reset()
    }

    /// Every register at its power-on value, the FIFO empty, standby.
    mutating func reset() {
        registers = [UInt8](repeating: 0, count: registers.count)
        registers[Int(ADXL355Register.devidAD)] = ADXL355Register.expectedDevidAD
        registers[Int(ADXL355Register.devidMST)] = ADXL355Register.expectedDevidMST
        registers[Int(ADXL355Register.partID)] = configuration.partID
        registers[Int(ADXL355Register.revID)] = configuration.revisionID
        registers[Int(ADXL355Register.fifoSamples)] = 0x60
        registers[Int(ADXL355Register.actEn) + 3] = 0x01  // ACT_COUNT
        registers[Int(ADXL355Register.range)] = ADXL355Range.i2cHighSpeed | ADXL355Range.g2.rawValue
        registers[Int(ADXL355Register.powerCtl)] = ADXL355PowerCtl.standby
        fifo.removeAll()
        entryUnderRead = nil
        entryBytesRead = 0
        firstSampleTime = nil
        overrun = false
        dataReady = false
    }

    var isMeasuring: Bool { registers[Int(ADXL355Register.powerCtl)] & ADXL355PowerCtl.standby == 0 }
    var range: ADXL355Range { ADXL355Range(register: registers[Int(ADXL355Register.range)]) ?? .g2 }
    var rateHz: Double { ADXL355Filter.rateHz(code: registers[Int(ADXL355Register.filter)] & ADXL355Filter.odrMask) ?? 4000 }
    private var selfTestForceOn: Bool {
        registers[Int(ADXL355Register.selfTest)] & 0x03 == ADXL355Register.selfTestST1 | ADXL355Register.selfTestST2
    }

    // MARK: Time

    /// Brings the chip up to `time`: an unplug that has begun power-cycles it
    /// (``ConnectionFaultState/takePowerCycle(at:)``), then every sample due is produced.
    public mutating func synchronize(to time: Double) {
        let target = time.isFinite ? max(now, time) : now
        if let lostPower = connection.takePowerCycle(at: target) {
            // The chip ran until it lost power; it comes back as from power-on, in standby.
            produceSamples(until: lostPower)
            reset()
            statistics.powerCycles += 1
        }
        produceSamples(until: target)
    }

    /// Produces every sample due at or before `time`. When the FIFO is full, new sets are lost
    /// and FIFO_OVR is set; the data registers always hold the newest.
    private mutating func produceSamples(until time: Double) {
        guard time.isFinite, time > now else { return }
        now = time
        guard let first = firstSampleTime else { return }
        let rate = rateHz
        let span = min((time - first) * rate + 1e-6, 1e15)
        guard span >= Double(nextSampleNumber) else { return }
        let due = Int(span.rounded(.down)) - nextSampleNumber + 1
        let room = (ADXL355Register.fifoEntryCapacity - fifo.count) / 3
        let stored = min(due, room)
        for index in 0..<stored {
            let counts = sample(number: nextSampleNumber + index, first: first, rate: rate)
            fifo += [Entry(counts: counts.x, isX: true), Entry(counts: counts.y, isX: false), Entry(counts: counts.z, isX: false)]
            if index == due - 1 { latch(counts) }
        }
        if due > stored {
            overrun = true
            statistics.lost += due - stored
            latch(sample(number: nextSampleNumber + due - 1, first: first, rate: rate))
        }
        statistics.samplesProduced += due
        nextSampleNumber += due
        serial &+= UInt64(due)
        dataReady = true
    }

    /// The newest sample into XDATA3…ZDATA1.
    private mutating func latch(_ counts: (x: Int, y: Int, z: Int)) {
        for (offset, value) in [counts.x, counts.y, counts.z].enumerated() {
            let bytes = Self.bytes(counts: value, flags: 0)
            for (index, byte) in bytes.enumerated() {
                registers[Int(ADXL355Register.xData3) + offset * 3 + index] = byte
            }
        }
    }

    /// Sample `number` of the grid, in counts: the scene, the machine's vibration (and the
    /// self-test force) through the part's nonlinearity, sensitivity and offset (both drifting
    /// with the die temperature at the sample's time), plus noise over the bandwidth the rate sets.
    private func sample(number: Int, first: Double, rate: Double) -> (x: Int, y: Int, z: Int) {
        let time = first + Double(number) / rate
        let serial = self.serial &+ UInt64(number - nextSampleNumber)
        var force = configuration.scene.gravity(at: time)
        if let machine { force += machine.acceleration(at: time, serial: serial) }
        if selfTestForceOn { force += configuration.selfTestResponse }
        force = CubicNonlinearity.bow(force, by: configuration.nonlinearity, fullScale: range.fullScaleG)
        let sigma = configuration.noiseDensity * ADXL355.noiseBandwidthHz(rateHz: rate).squareRoot()
        let normals = noise.normals(forSample: serial)
        let drift = configuration.thermalDrift(at: configuration.dieTemperature(at: time))
        let scaled = configuration.sensitivity * force
        let sensed = Vector3(x: scaled.x * drift.scale.x, y: scaled.y * drift.scale.y, z: scaled.z * drift.scale.z)
            + configuration.offset + drift.offset
            + Vector3(x: normals.x * sigma.x, y: normals.y * sigma.y, z: normals.z * sigma.z)
        let scale = range.countsPerG
        func counts(_ g: Double) -> Int {
            let value = (g * scale).rounded()
            return Int(min(max(value, Double(ADXL355.countLimits.lowerBound)), Double(ADXL355.countLimits.upperBound)))
        }
        return (counts(sensed.x), counts(sensed.y), counts(sensed.z))
    }

    /// Three register bytes of a 20-bit value, left-justified, `flags` in bits 1…0 of the last.
    static func bytes(counts: Int, flags: UInt8) -> [UInt8] {
        let word = UInt32(truncatingIfNeeded: counts) << 4
        return [UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word) | flags]
    }

    // MARK: Reads

    /// One read of `count` bytes from `register`. FIFO_DATA does not auto-increment: each three
    /// bytes pop one entry (an empty FIFO reads the empty indicator), and a read that ends inside
    /// an entry loses the rest of it. Other registers auto-increment; a burst that runs through
    /// FIFO_DATA from below reads 0 there (not modelled further); above the map reads 0.
    public mutating func read(from register: UInt8, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        if register == ADXL355Register.fifoData {
            for _ in 0..<count { bytes.append(nextFIFOByte()) }
            if entryUnderRead != nil {
                statistics.entriesCutShort += 1
                entryUnderRead = nil
                entryBytesRead = 0
            }
            return bytes
        }
        // One conversion serves both temperature bytes of a read, so a burst of TEMP2/TEMP1 is
        // one consistent reading; each read that touches them draws a new one.
        let touchesTemperature = (Int(register)..<Int(register) + count).contains { $0 == Int(ADXL355Register.temp2)
            || $0 == Int(ADXL355Register.temp1) }
        let temperature = touchesTemperature ? takeTemperatureReading() : 0
        for offset in 0..<count {
            let address = Int(register) + offset
            bytes.append(address <= Int(ADXL355Register.last) ? readByte(UInt8(address), temperature: temperature) : 0)
        }
        return bytes
    }

    private mutating func readByte(_ register: UInt8, temperature temperatureRaw: Int) -> UInt8 {
        switch register {
        case ADXL355Register.status:
            var value: UInt8 = 0
            if dataReady { value |= ADXL355Status.dataReady }
            if fifo.count >= Int(registers[Int(ADXL355Register.fifoSamples)]) { value |= ADXL355Status.fifoFull }
            if overrun { value |= ADXL355Status.fifoOverrun }
            dataReady = false
            overrun = false
            return value
        case ADXL355Register.fifoEntries:
            return UInt8(fifo.count)
        case ADXL355Register.temp2:
            return UInt8(temperatureRaw >> 8) & 0x0F
        case ADXL355Register.temp1:
            return UInt8(truncatingIfNeeded: temperatureRaw)
        case ADXL355Register.fifoData, ADXL355Register.reset:
            return 0
        default:
            return registers[Int(register)]
        }
    }

    /// The 12-bit temperature register now: the nominal transfer function at the die temperature,
    /// plus the part's intercept error and the sensor's noise (``SimulatedADXL355/Configuration/temperatureNoiseCelsius``).
    private mutating func takeTemperatureReading() -> Int {
        let sensor = ADXL355.temperatureSensor
        var celsius = configuration.dieTemperature(at: now)
        if configuration.temperatureNoiseCelsius > 0 {
            celsius += temperatureNoise.normals(forSample: temperatureReads).x * configuration.temperatureNoiseCelsius
        }
        temperatureReads &+= 1
        let raw = sensor.offsetLSB + (celsius - sensor.offsetDegrees) * sensor.lsbPerDegree
            + configuration.temperatureOffsetLSB
        guard raw.isFinite else { return 0 }
        return Int(min(max(raw.rounded(), 0), 4095))
    }

    private mutating func nextFIFOByte() -> UInt8 {
        if entryUnderRead == nil {
            if fifo.isEmpty {
                entryUnderRead = Self.bytes(counts: 0, flags: 0x02)
            } else {
                let entry = fifo.removeFirst()
                entryUnderRead = Self.bytes(counts: entry.counts, flags: entry.isX ? 0x01 : 0)
                statistics.entriesRead += 1
            }
            entryBytesRead = 0
        }
        let byte = entryUnderRead![entryBytesRead]
        entryBytesRead += 1
        if entryBytesRead == ADXL355Register.entryByteCount {
            entryUnderRead = nil
            entryBytesRead = 0
        }
        return byte
    }

    // MARK: Writes

    /// One register write: RESET's code resets; POWER_CTL's standby bit starts and stops the
    /// sample clock; read-only and reserved registers ignore the value. Configuration written
    /// while measuring is counted (``SimulatedADXL355/Statistics/configurationWritesWhileMeasuring``):
    /// FILTER is then ignored (Analog Devices' own no-OS driver notes that the low-pass setting
    /// cannot change in measurement mode); RANGE, FIFO_SAMPLES, INT_MAP and SYNC take effect.
    public mutating func write(_ register: UInt8, value: UInt8) {
        writeLog.append(RegisterWrite(register: register, value: value))
        switch register {
        case ADXL355Register.reset:
            if value == ADXL355Register.resetCode {
                reset()
                statistics.resets += 1
            }
        case ADXL355Register.powerCtl:
            let wasMeasuring = isMeasuring
            registers[Int(register)] = value & 0x07
            if isMeasuring, !wasMeasuring {
                // The datasheet gives no phase; the first sample falls one period after.
                firstSampleTime = now + 1 / rateHz
                nextSampleNumber = 0
            } else if !isMeasuring {
                firstSampleTime = nil
            }
        case ADXL355Register.filter, ADXL355Register.range, ADXL355Register.fifoSamples,
             ADXL355Register.intMap, ADXL355Register.sync:
            if isMeasuring {
                statistics.configurationWritesWhileMeasuring += 1
                if register == ADXL355Register.filter { return }
            }
            registers[Int(register)] = value
        case ADXL355Register.offsetXH...ADXL355Register.selfTest:
            registers[Int(register)] = value
        default:
            statistics.ignoredWrites += 1
        }
    }
}
