import Geometry
import I2C
import PlumbSync

extension MPU6050 {
    private static let statusRun = RegisterRun(register: MPU6050Register.intStatus, count: 1)
    private static let countRun = RegisterRun(register: MPU6050Register.fifoCountH, count: 2)
    /// The most bytes one SMBus I²C-block read carries (32), rounded down to whole samples.
    static let smbusChunkBytes = 30

    /// Reads the whole samples the FIFO holds, oldest first.
    ///
    /// One transaction where the bus combines reads (two otherwise) reads INT_STATUS and
    /// FIFO_COUNTH/L; then one burst of FIFO_R_W reads `6 × (count / 6)` bytes, in 30-byte
    /// pieces on an SMBus adapter (FIFO_R_W does not auto-increment, so each piece pops the next
    /// bytes). Never a partial sample: when INT_STATUS shows FIFO_OFLOW, the count shows a full
    /// FIFO (1024 bytes is not whole samples, and a full MPU-6050 FIFO overwrites its oldest
    /// bytes), or the count is not a multiple of 6, the alignment of the bytes is lost: the drain
    /// reads none, resets the FIFO, and reports `overrun`. The samples since the previous drain
    /// are then lost, as with the ADXL345's overrun.
    public func drain(into samples: inout [Vector3]) throws(SensorError) -> DrainReport {
        guard let run = running.withLock({ $0 }) else { return DrainReport() }
        let heads = try readRuns([Self.statusRun, Self.countRun])
        let status = heads[0][0]
        let count = Int(heads[1][0]) << 8 | Int(heads[1][1])
        let overflowed = status & MPU6050Bits.fifoOverflow != 0 || count >= run.variant.fifoBytes
        let misaligned = count % MPU6050Register.sampleByteCount != 0
        counters.withLock { $0.drains += 1 }
        if overflowed || misaligned {
            counters.withLock {
                if overflowed { $0.overflows += 1 } else { $0.misalignments += 1 }
            }
            try resetFIFO()
            return DrainReport(overrun: true)
        }
        var report = DrainReport()
        guard count > 0 else { return report }
        let bytes = try readFIFO(count: count)
        let range = run.configuration.range
        var offset = 0
        while offset + MPU6050Register.sampleByteCount <= bytes.count {
            let (gravity, clipped) = MPU6050Decoding.decode(bytes[offset..<offset + MPU6050Register.sampleByteCount],
                                                            range: range)
            samples.append(gravity)
            report.count += 1
            if clipped { report.clipped += 1 }
            offset += MPU6050Register.sampleByteCount
        }
        counters.withLock { $0.samples += report.count }
        return report
    }

    /// `count` bytes of FIFO_R_W: one burst, or ≤ 30-byte pieces over SMBus.
    private func readFIFO(count: Int) throws(SensorError) -> [UInt8] {
        guard bus.transferMode == .smbusBlock else { return try readBurst(MPU6050Register.fifoRW, count: count) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            bytes += try readBurst(MPU6050Register.fifoRW, count: min(Self.smbusChunkBytes, count - bytes.count))
        }
        return bytes
    }
}
