// GreatBook Intake: small progressive enhancements. Everything works without it.
"use strict";
