import { App } from "aws-cdk-lib";
import { buildBeacon } from "../lib/beacon-app.js";

buildBeacon(new App());
