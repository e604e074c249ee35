import Accelerometers
import Geometry
import I2C
import SimulatedADXL345
import Testing

/// One sample as signed counts, decoded from DATAX0…DATAZ1.
struct SimSample: Equatable, CustomStringConvertible {
    var x: Int
    var y: Int
    var z: Int

    init(x: Int, y: Int, z: Int) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Decodes six little-endian bytes as three 16-bit two's-complement words.
    init(bytes: [UInt8]) {
        func word(_ index: Int) -> Int {
            Int(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8))
        }
        self.init(x: word(0), y: word(2), z: word(4))
    }

    var description: String { "(\(x), \(y), \(z))" }
}

/// A simulated chip on a manual clock, driven through the `I2CBus` API only.
struct SimRig {
    let clock: ManualSimulationClock
    let chip: SimulatedADXL345
    let address = SimulatedADXL345.Configuration.defaultAddress

    /// DATA_FORMAT for ±16 g full resolution, right-justified.
    static let fullResolution16g: UInt8 = DataFormat.fullResolution | ADXL345Range.g16.rawValue
    /// FIFO_CTL for stream mode, watermark 0.
    static let stream: UInt8 = FIFOMode.stream.rawValue << FIFOCtl.modeShift
    /// FIFO_CTL for FIFO mode, watermark 0.
    static let fifo: UInt8 = FIFOMode.fifo.rawValue << FIFOCtl.modeShift
    /// FIFO_CTL for bypass mode.
    static let bypass: UInt8 = 0

    init(_ configuration: SimulatedADXL345.Configuration = .init()) {
        clock = ManualSimulationClock()
        chip = SimulatedADXL345(configuration: configuration, clock: clock)
    }

    /// A rig whose chip has no noise, for exact expectations.
    static func noiseless(_ scene: SimulatedScene = .level) -> SimRig {
        SimRig(.init(scene: scene, noiseXY: 0))
    }

    func write(_ register: UInt8, _ value: UInt8) throws {
        try chip.writeRegister(at: address, register, value: value)
    }

    func read(_ register: UInt8) throws -> UInt8 {
        try chip.readRegister(at: address, register)
    }

    func read(_ register: UInt8, count: Int) throws -> [UInt8] {
        try chip.readRegisters(at: address, from: register, count: count)
    }

    func entries() throws -> Int {
        Int(try read(ADXL345Register.fifoStatus) & FIFOStatus.entriesMask)
    }

    /// One six-byte burst of the data registers.
    func readSample() throws -> SimSample {
        SimSample(bytes: try read(ADXL345Register.dataX0, count: ADXL345Register.sampleByteCount))
    }

    /// Configures in standby, the datasheet's order, then sets Measure at the current time.
    func start(rateCode: UInt8 = 0x0A, dataFormat: UInt8 = SimRig.fullResolution16g, fifoCtl: UInt8 = SimRig.stream) throws {
        try write(ADXL345Register.powerCtl, 0)
        try write(ADXL345Register.dataFormat, dataFormat)
        try write(ADXL345Register.bwRate, rateCode)
        try write(ADXL345Register.fifoCtl, fifoCtl)
        try write(ADXL345Register.powerCtl, PowerCtl.measure)
    }

    /// Seconds from setting Measure to the first sample at `hertz`.
    static func firstSampleDelay(hertz: Double) -> Double {
        1 / hertz + 0.0011
    }

    /// Reads every entry FIFO_STATUS reports.
    func drain() throws -> [SimSample] {
        try (0..<entries()).map { _ in try readSample() }
    }

    /// Collects `count` consecutive samples in stream mode at `hertz`, advancing the clock 20
    /// periods at a time so that the FIFO never overflows.
    func collect(_ count: Int, hertz: Double) throws -> [SimSample] {
        var samples: [SimSample] = []
        while samples.count < count {
            clock.advance(by: 20 / hertz)
            samples += try drain()
        }
        return Array(samples.prefix(count))
    }
}

/// Root-mean-square deviation from the mean.
func simStandardDeviation(_ values: [Int]) -> Double {
    let mean = Double(values.reduce(0, +)) / Double(values.count)
    let sum = values.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) }
    return (sum / Double(values.count)).squareRoot()
}
