"""The companion at the table: camera and voice fused into the table log.

Data flows one way::

    frames -> detector -> FrameDetections --\
                                             > tracker -> Proposal -> fusion -> engine -> sinks
    audio/transcript -> VoiceObservation ---/

``observations`` holds the plain data passed between stages, ``zones`` the
seat geometry, ``tracker`` turns detection frames into proposed table-log
events, ``fusion`` orders card and voice proposals, applies the sure ones and
holds the rest for confirmation, and ``session`` is the loop shared by
``companion run``, ``replay`` and ``demo``.
"""
