import { restartScenarios } from "./RestartScenarios.js"

restartScenarios("sqlite")
