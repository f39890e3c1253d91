import { restartScenarios } from "./RestartScenarios.js"

restartScenarios("pg")
