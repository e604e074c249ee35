import Accelerometers
import I2C

/// All of the simulated chip's mutable state; lives in one `Locked` so that each bus call is one
/// atomic transaction. Public only as ``SimulatedADXL345``'s ``SimulatedChip/State``: no one
/// outside the package makes or reads one.
public struct ChipState: SimulatedChipState {
    /// The register file, indexed by address 0x00…0x39. Reserved addresses hold 0 and are never
    /// written; INT_SOURCE, the data registers and FIFO_STATUS are computed on read.
    var registers: [UInt8]
    /// Unread entries, oldest first.
    var fifo = SampleQueue()
    /// What the data registers show once every entry has been read: the last one read.
    var lastRead = RawSample.zero
    /// INT_SOURCE OVERRUN, latched until the data registers are read.
    var overrun = false

    /// When sample 0 of the current grid falls due; nil in standby.
    var firstSampleTime: Double?
    /// The next sample of the current grid not yet produced.
    var nextSampleNumber = 0
    /// Samples produced since creation: the noise address of the next one.
    var serial: UInt64 = 0
    /// The latest clock reading seen; time never runs backwards for the chip.
    public var now: Double

    public var configuration: SimulatedADXL345.Configuration
    var pipeline: OutputPipeline
    /// The machine's vibration, ready to sample; nil without one.
    public var machine: MachineStage?
    /// The connection and its fault (``configuration``'s `fault` is kept equal to its own).
    public var connection: ConnectionFaultState

    public var statistics = SimulatorStatistics()
    public var writeLog: [RegisterWrite] = []

    init(configuration: SimulatedADXL345.Configuration, time: Double) {
        registers = Self.resetRegisters
        now = time.isFinite ? time : 0
        self.configuration = configuration
        connection = ConnectionFaultState(configuration.fault)
        pipeline = OutputPipeline(configuration: configuration)
        machine = configuration.vibration.map { MachineStage($0, seed: configuration.seed) }
    }

    static let resetRegisters: [UInt8] = {
        var values = [UInt8](repeating: 0, count: Int(ADXL345Register.fifoStatus) + 1)
        for (register, value) in ADXL345Register.resetValues {
            values[Int(register)] = value
        }
        return values
    }()

    static let dataRegisters = Int(ADXL345Register.dataX0)..<Int(ADXL345Register.dataX0) + ADXL345Register.sampleByteCount

    var format: OutputFormat {
        OutputFormat(
            dataFormat: registers[Int(ADXL345Register.dataFormat)],
            bwRate: registers[Int(ADXL345Register.bwRate)])
    }

    var fifoMode: FIFOMode {
        FIFOMode(rawValue: registers[Int(ADXL345Register.fifoCtl)] >> FIFOCtl.modeShift) ?? .bypass
    }

    var isMeasuring: Bool {
        registers[Int(ADXL345Register.powerCtl)] & PowerCtl.measure != 0
    }

    /// INT_SOURCE: only the data interrupts are modelled (tap, activity and free fall read 0).
    var interruptSource: UInt8 {
        let watermarkLevel = Int(registers[Int(ADXL345Register.fifoCtl)] & FIFOCtl.samplesMask)
        var value: UInt8 = 0
        if !fifo.isEmpty { value |= Interrupt.dataReady }
        // A watermark of 0 is met at once, which is why INT_SOURCE resets to 0x02.
        if fifo.count >= watermarkLevel { value |= Interrupt.watermark }
        if overrun { value |= Interrupt.overrun }
        return value
    }

    /// FIFO_STATUS: entries in bits 5:0; the trigger bit never sets (no trigger events).
    var fifoStatus: UInt8 {
        UInt8(fifo.count) & FIFOStatus.entriesMask
    }

    // MARK: Time

    /// Brings the chip up to clock reading `reading`: an unplug that has begun power-cycles it
    /// (``ConnectionFaultState/takePowerCycle(at:)``), then every sample due is produced.
    public mutating func synchronize(to reading: Double) {
        if reading.isFinite { now = max(now, reading) }
        if let lostPower = connection.takePowerCycle(at: now) {
            // The chip ran until it lost power; whatever it held then is gone.
            produceSamples(until: lostPower)
            powerCycle()
        }
        produceSamples(until: now)
    }

    mutating func powerCycle() {
        registers = Self.resetRegisters
        statistics.lost += fifo.count
        fifo.removeAll()
        lastRead = .zero
        overrun = false
        firstSampleTime = nil
        statistics.powerCycles += 1
    }

    // MARK: Registers

    /// Reads `count` registers from `start`, auto-incrementing. The bytes all come from the state
    /// at the start of the transaction; a read touching any data register pops one entry at its
    /// end, so a short read discards the rest of that entry, as the datasheet warns.
    public mutating func read(from start: UInt8, count: Int) -> [UInt8] {
        let shown = fifo.first ?? lastRead
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        var touchedData = false
        for address in Int(start)..<Int(start) + count {
            if Self.dataRegisters.contains(address) {
                bytes.append(shown.byte(address - Self.dataRegisters.lowerBound))
                touchedData = true
            } else if address == Int(ADXL345Register.intSource) {
                bytes.append(interruptSource)
            } else if address == Int(ADXL345Register.fifoStatus) {
                bytes.append(fifoStatus)
            } else if address <= Int(UInt8.max), ADXL345Register.isAccessible(UInt8(address)) {
                bytes.append(registers[address])
            } else {
                // Past 0xFF the real chip's 8-bit address pointer would wrap; nothing up there
                // exists either way, so every such byte is a reserved access reading 0.
                statistics.reservedAccesses += 1
                bytes.append(0)
            }
        }
        if touchedData {
            if let entry = fifo.removeFirst() {
                lastRead = entry
                statistics.entriesRead += 1
            }
            overrun = false
        }
        return bytes
    }

    /// Writes one register with the side effects the datasheet gives it.
    public mutating func write(_ register: UInt8, value: UInt8) {
        writeLog.append(RegisterWrite(register: register, value: value))
        guard ADXL345Register.isAccessible(register) else {
            statistics.reservedAccesses += 1
            return
        }
        let index = Int(register)
        switch register {
        case ADXL345Register.devid, ADXL345Register.actTapStatus, ADXL345Register.intSource,
            ADXL345Register.fifoStatus:
            return  // read-only
        case _ where Self.dataRegisters.contains(index):
            return  // read-only

        case ADXL345Register.powerCtl:
            let wasMeasuring = isMeasuring
            registers[index] = value
            if !wasMeasuring && isMeasuring {
                startSampling(at: now)
            } else if wasMeasuring && !isMeasuring {
                firstSampleTime = nil  // standby keeps what the FIFO holds
            }

        case ADXL345Register.bwRate:
            let oldRate = format.rate
            registers[index] = value
            if isMeasuring && format.rate != oldRate {
                restartSampling(at: now)
            }

        case ADXL345Register.fifoCtl:
            registers[index] = value
            if fifoMode == .bypass {
                // Bypass clears the FIFO; the data registers keep showing the newest sample.
                statistics.lost += fifo.count
                if let newest = fifo.last { lastRead = newest }
                fifo.removeAll()
                overrun = false
            }

        default:
            registers[index] = value
        }
    }
}
