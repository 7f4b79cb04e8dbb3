"""Built-in vehicle catalogue.

Three vehicles ship with LEVIATHAN, each a TOML document in
``leviathan/catalogue/vehicles/`` read with :func:`leviathan.specs.load_spec`,
the loader users call for their own vehicles (so a built-in vehicle is
validated exactly like a user's, and a user may copy one as a starting point):

* ``torpedo_auv`` and ``inspection_rov`` are production vehicle models. In
  this release they declare a front camera only.
* ``reference_survey_vehicle`` is a test and reference model. It declares an
  imaging sonar, a DVL and an IMU whose rates and hardware are declared test
  values, not a device specification.

Mass properties are plausible round numbers derived from simple hull shapes
(cylinder, box), not measurements of any real vehicle; each document's
comments say how its values were derived. Frames: body FRD with its origin at
the centre of gravity; mount angles are roll, pitch, yaw [deg] in ZYX order. In
FRD a positive pitch raises the x axis (nose up), so a sensor tilted down has a
negative pitch.
"""

from leviathan.catalogue._table import format_catalogue
from leviathan.catalogue._vehicles import catalogue, get_vehicle, vehicle_names

__all__ = ["catalogue", "format_catalogue", "get_vehicle", "vehicle_names"]
