import Ruler

extension RulerRequestHandler {
    /// The surface under the level from the current reading, with the reading itself, or
    /// `no_reading` saying why there is none.
    static func surface(from reading: CurrentReading?) throws(RequestFailure) -> (SurfaceTilt, CurrentReading) {
        guard let reading else {
            throw RequestFailure(.noReading, "no current reading: the sensor is starting or faulty; retry in a few seconds.")
        }
        do {
            return (try SurfaceTilt(levelGravity: reading.levelGravity, standardError: reading.standardError), reading)
        } catch {
            throw RequestFailure(error)
        }
    }
}
