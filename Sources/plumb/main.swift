import PlumbCLI
#if canImport(Glibc)
import Glibc
#endif

exit(Plumb.main(Array(CommandLine.arguments.dropFirst())))
