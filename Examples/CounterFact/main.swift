// CounterFact: counters, their sum and facts about their numbers, in the terminal.
import Foundation

exit(await CounterFactCLI.main(arguments: Array(CommandLine.arguments.dropFirst())))
