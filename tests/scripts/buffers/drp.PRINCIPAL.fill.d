/* asserts: the fill policy drops records once its buffer is full */
#pragma D option bufpolicy=fill
#pragma D option bufsize=4k
tick-1ms
{
	trace("some text to fill the buffer up quickly");
}

tick-1s
{
	exit(0);
}
