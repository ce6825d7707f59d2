// Standups: plan standups, record meetings and keep their transcripts, in the terminal.
import Foundation

exit(await StandupsCLI.main(arguments: Array(CommandLine.arguments.dropFirst())))
