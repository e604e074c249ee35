// placeholder until the first test lands
