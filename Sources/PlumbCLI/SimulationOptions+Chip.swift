import Accelerometers

// TEMPORARY until --sim-chip lands (sim-parity branch): the simulated chip is the ADXL345.
extension SimulationOptions {
    var chip: ChipDescription { ChipCatalog.simulated }
}
