// Placeholder until the module lands; delete me.
